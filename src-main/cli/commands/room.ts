import { print, type CeCommand } from '../command';
import { readAs } from '../room-client';

export const ROOM_COMMANDS: CeCommand[] = [
  {
    name: 'info',
    synopsis: ['ce info'],
    summary: "the room's paths, schema version and counts",
    examples: ['ce info', 'ce info --room ~/notes/project.md --json'],
    async run(args, room) {
      const info = await readAs(room, 'room_info', {});
      print(args, info, () =>
        [
          `room:      ${info.room.markdownPath}`,
          `database:  ${info.room.databasePath}`,
          `schema:    ${info.schemaVersion}   runner: ${info.runnerVersion}`,
          `counts:    ${info.counts.participants} participants, ${info.counts.events} events`,
        ].join('\n'),
      );
      return 0;
    },
  },
];
