import { inCeTerms } from './ce-terms';
import { RUNNER_VERSION } from '../common/version';
import { parseArgs, stringFlag, UsageError } from './args';
import { EXIT, runCli } from './exit-codes';
import type { CeCommand } from './command';
import { commandHelp, GLOBAL_OPTIONS, overallHelp } from './help';
import { CE_COMMANDS } from './commands/index';

/** Where the command word is: the first argument that is not an option (nor the value of --room). */
function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (arg === '--room') i++;
    else if (!arg.startsWith('-')) return i;
  }
  return -1;
}

function find(name: string): CeCommand {
  const command = CE_COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}: run "ce --help" for the list`);
  return command;
}

async function main(argv: string[]): Promise<number> {
  const at = commandIndex(argv);
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (at < 0) {
    if (argv.includes('--version')) {
      process.stdout.write(`${RUNNER_VERSION}\n`);
      return EXIT.ok;
    }
    if (wantsHelp) {
      process.stdout.write(`${overallHelp(CE_COMMANDS)}\n`);
      return EXIT.ok;
    }
    if (argv.length > 0) parseArgs(argv, { ...GLOBAL_OPTIONS, version: 'boolean' }); // names the unknown option
    process.stderr.write(`${overallHelp(CE_COMMANDS)}\n`);
    return EXIT.usage;
  }
  const name = argv[at] as string;
  if (name === 'help') {
    const topic = argv[at + 1];
    process.stdout.write(`${topic === undefined ? overallHelp(CE_COMMANDS) : commandHelp(find(topic))}\n`);
    return EXIT.ok;
  }
  if (name === 'version') {
    process.stdout.write(`${RUNNER_VERSION}\n`);
    return EXIT.ok;
  }
  const command = find(name);
  if (wantsHelp) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return EXIT.ok;
  }
  let args;
  try {
    args = parseArgs([...argv.slice(0, at), ...argv.slice(at + 1)], { ...command.options, ...GLOBAL_OPTIONS });
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${error.message}; see "ce ${name} --help"`);
    throw error;
  }
  // commands read their arguments after the command word, as positional[1..]
  args.positional.unshift(name);
  const room = stringFlag(args, 'room') ?? (process.env.COMMONROOM_ROOM || undefined);
  try {
    return await command.run(args, room);
  } catch (error) {
    // the room's refusals name agents' tools; a person here is told the ce command instead
    if (error instanceof Error) error.message = inCeTerms(error.message);
    throw error;
  }
}

runCli('ce', main);
