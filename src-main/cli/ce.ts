import { parseCapabilities } from '../common/capabilities';
import type { ParticipantView } from '../common/dto';
import { RoomError } from '../common/errors';
import { toView } from '../engine/store/participants';
import { parseArgs, stringFlag, UsageError, type ParsedArgs } from './args';
import { callAsOperator, withReader } from './room-client';

const USAGE = `usage: ce <command> [--room FILE.md] [--json]

participants:
  ce participant add NAME --can read,write[,approve,operate]   add an agent; prints its token once
  ce participant list                                          list participants
  ce participant revoke NAME                                   revoke a participant's token
room:
  ce info                                                      the room's paths, schema and counts

--room FILE.md picks the room (default: $COMMONROOM_ROOM, else your default room).
Changes go through the running room process when one serves the room, else open the room directly.`;

function print(args: ParsedArgs, value: unknown, human: () => string): void {
  console.log(args.flags.json ? JSON.stringify(value, null, 2) : human());
}

function participantLine(p: ParticipantView): string {
  const state = p.revokedAt ? `revoked ${p.revokedAt}` : 'active';
  return `${p.name.padEnd(24)} ${p.role.padEnd(9)} ${p.capabilities.join(',').padEnd(26)} ${state}`;
}

async function participant(args: ParsedArgs, room: string | undefined): Promise<number> {
  const [, sub, name, ...extra] = args.positional;
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  switch (sub) {
    case 'add': {
      if (!name) throw new UsageError('ce participant add NAME --can read,write: NAME is missing');
      const can = stringFlag(args, 'can');
      if (!can) throw new UsageError('ce participant add NAME --can read,write: say what it may do with --can');
      const created = await callAsOperator(room, 'participant_add', { name, capabilities: parseCapabilities(can) });
      print(args, created, () =>
        [
          `added ${created.participant.name} (${created.participant.capabilities.join(',')})`,
          `token (shown once, store it now): ${created.token}`,
        ].join('\n'),
      );
      return 0;
    }
    case 'list': {
      if (name) throw new UsageError(`unexpected argument ${JSON.stringify(name)}`);
      const participants = withReader(room, (reader) => reader.participants.list().map(toView));
      print(args, { participants }, () => participants.map(participantLine).join('\n'));
      return 0;
    }
    case 'revoke': {
      if (!name) throw new UsageError('ce participant revoke NAME: NAME is missing');
      const out = await callAsOperator(room, 'participant_revoke', { name });
      print(args, out, () => (out.changed ? `revoked ${name}` : `${name} was already revoked (${out.participant.revokedAt ?? ''})`));
      return 0;
    }
    default:
      throw new UsageError(`ce participant ${sub ?? ''}: use add, list or revoke`);
  }
}

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { room: 'string', can: 'string', json: 'boolean', help: 'boolean' });
  const room = stringFlag(args, 'room') ?? (process.env.COMMONROOM_ROOM || undefined);
  const [command] = args.positional;
  if (args.flags.help || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  switch (command) {
    case 'participant':
      return participant(args, room);
    case 'info': {
      const info = await callAsOperator(room, 'room_info', {});
      print(args, info, () =>
        [
          `room:      ${info.room.markdownPath}`,
          `database:  ${info.room.databasePath}`,
          `schema:    ${info.schemaVersion}   runner: ${info.runnerVersion}`,
          `counts:    ${info.counts.participants} participants, ${info.counts.events} events`,
        ].join('\n'),
      );
      return 0;
    }
    case undefined:
      console.error(USAGE);
      return 2;
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}; run "ce help"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`ce: ${error.message}`);
      process.exit(2);
    }
    console.error(`ce: ${error instanceof RoomError || error instanceof Error ? error.message : String(error)}`);
    if (process.env.COMMONROOM_DEBUG && error instanceof Error) console.error(error.stack);
    process.exit(1);
  },
);
