import { RUNNER_VERSION } from '../common/version';
import { runCli } from './exit-codes';
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

runCli('commonroom', main);
