import { RoomError } from '../common/errors';
import { RUNNER_VERSION } from '../common/version';
import { UsageError } from './args';
import { serve, SERVE_USAGE } from './serve';

const USAGE = `usage: commonroom <command>

commands:
  serve      start the room process headless (engine + MCP endpoint)
  version    print the version

${SERVE_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'version':
    case '--version':
      console.log(RUNNER_VERSION);
      return 0;
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      console.error(`commonroom: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`commonroom: ${error.message}`);
      process.exit(2);
    }
    const message = error instanceof RoomError || error instanceof Error ? error.message : String(error);
    console.error(`commonroom: ${message}`);
    if (process.env.COMMONROOM_DEBUG && error instanceof Error) console.error(error.stack);
    process.exit(1);
  },
);
