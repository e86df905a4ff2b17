import { RUNNER_VERSION } from '../common/version';
import { runCli } from './exit-codes';
import { serve, SERVE_USAGE } from './serve';
import { node } from './node';
import { service } from './service/command';

const USAGE = `usage: commonroom <command>

commands:
  serve      start the room process headless (engine + MCP endpoint)
  node       run this machine as a room node for a room on another machine (over SSH: node --stdio)
  service    install | uninstall | status: run your room as your login service (commonroom service --help)
  version    print the version

${SERVE_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'node':
      return node(rest);
    case 'service':
      return service(rest);
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
