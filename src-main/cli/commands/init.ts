import { isRoomError } from '../../common/errors';
import { Room, resolvePaths } from '../../engine/index';
import { noExtra } from '../args';
import { print, type CeCommand } from '../command';
import { roomIsServed } from '../room-client';

/** The one `ce` command that creates a room (every other one refuses a room that does not exist). */
export const INIT_COMMAND: CeCommand = {
  name: 'init',
  synopsis: ['ce init [--room FILE.md]'],
  summary: 'create the room (its database beside the markdown file, and your operator token) without serving it',
  details: [
    'Other ce commands never create a room: a mistyped --room is refused instead of becoming a new room.',
    '"commonroom serve" creates the room too. Running init on an existing room changes nothing and says so.',
  ],
  examples: ['ce init --room ~/notes/project.md', 'ce init && ce participant add claude --can read,write'],
  async run(args, roomArg) {
    noExtra(args, 1);
    if (roomIsServed(roomArg)) {
      print(args, { created: false, served: true }, () => 'the room exists and a room process serves it: nothing to do');
      return 0;
    }
    const paths = resolvePaths();
    let existed = true;
    try {
      Room.openReadOnly({ markdown: roomArg, paths }).close();
    } catch (error) {
      // anything but "no room there" (an old schema, say) is for Room.open below to explain or fix
      if (isRoomError(error) && error.code === 'NOT_FOUND') existed = false;
    }
    const room = Room.open({ markdown: roomArg, paths });
    const out = { created: !existed, room: room.location.markdownPath, database: room.location.databasePath, operatorTokenFile: room.operatorTokenFile };
    room.close();
    print(args, out, () =>
      [
        existed ? `the room ${out.room} already exists: nothing changed` : `created the room ${out.room}`,
        `  database:       ${out.database}`,
        `  operator token: ${out.operatorTokenFile}  (yours: never give it to an agent)`,
        `next: commonroom serve${roomArg === undefined ? '' : ` --room ${out.room}`}, then ce participant add NAME --can read,write`,
      ].join('\n'),
    );
    return 0;
  },
};
