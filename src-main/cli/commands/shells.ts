import { RoomError } from '../../common/errors';
import { print, type CeCommand } from '../command';
import { callRunningRoomAsOperator } from '../room-client';

export const SHELL_COMMANDS: CeCommand[] = [
  {
    name: 'shells',
    synopsis: ['ce shells'],
    summary: 'the live shells of the running room process (attach to one with "ce shell attach")',
    examples: ['ce shells', 'ce shells --json'],
    async run(args, room) {
      const out = await callRunningRoomAsOperator(room, 'shell_list', {});
      if (out === null) {
        throw new RoomError('UNAVAILABLE', 'no room process is running for this room: shells live only inside one (start it with "commonroom serve")');
      }
      print(args, out, () =>
        out.shells.length === 0
          ? 'no shells'
          : out.shells
              .map((s) => {
                const state = s.alive ? 'alive' : s.signal ? `killed (${s.signal})` : `exited ${s.exitCode}`;
                return `${s.id.padEnd(22)} ${s.name.padEnd(14)} ${s.owner.padEnd(14)} pid ${String(s.pid).padEnd(8)} ${state.padEnd(14)} ${s.cwd}`;
              })
              .join('\n'),
      );
      return 0;
    },
  },
];
