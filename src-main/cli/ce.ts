import { parseArgs, stringFlag, UsageError } from './args';
import { runCli } from './exit-codes';
import type { CeCommand } from './command';
import { AUDIT_COMMANDS } from './commands/audit';
import { HANDOFF_COMMANDS } from './commands/handoffs';
import { GRAPH_COMMANDS } from './commands/graphs';
import { PARTICIPANT_COMMANDS } from './commands/participants';
import { ROOM_COMMANDS } from './commands/room';
import { SHELL_COMMANDS } from './commands/shells';

/** Every `ce` command; a feature adds its list here. */
const COMMANDS: CeCommand[] = [...ROOM_COMMANDS, ...PARTICIPANT_COMMANDS, ...SHELL_COMMANDS, ...HANDOFF_COMMANDS, ...GRAPH_COMMANDS, ...AUDIT_COMMANDS];

/** Flags any command may take. Commands read their own from the same parse. */
const FLAGS = {
  room: 'string',
  can: 'string',
  participant: 'string',
  reason: 'string',
  stage: 'string',
  cursor: 'string',
  limit: 'string',
  wait: 'boolean',
  json: 'boolean',
  help: 'boolean',
} as const;

const USAGE = `usage: ce <command> [--room FILE.md] [--json]

${COMMANDS.flatMap((c) => c.usage).join('\n')}

--room FILE.md picks the room (default: $COMMONROOM_ROOM, else your default room).
Every command goes through the running room process when one serves the room; else reads use the room
file read-only and changes open the room for the length of the command.`;

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, FLAGS);
  const room = stringFlag(args, 'room') ?? (process.env.COMMONROOM_ROOM || undefined);
  const [name] = args.positional;
  if (args.flags.help || name === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (name === undefined) {
    console.error(USAGE);
    return 2;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}; run "ce help"`);
  return command.run(args, room);
}

runCli('ce', main);
