import { LIMITS } from '../common/limits';
import { RUNNER_VERSION } from '../common/version';
import fs from 'node:fs';
import { connectSnippets } from '../common/connect-snippets';
import { ceCommand } from './ce-command';
import { isLoopbackHost, refuseHostMessage } from '../server/front-door';
import { portFromEnv, startRunner, type RunnerOptions, type RunningRoom } from '../server/runner';
import { parseArgs, portFlag, stringFlag, UsageError } from './args';
import { probeSandboxAhead } from '../engine/index';

export const SERVE_USAGE = `usage: commonroom serve [--room FILE.md] [--port N] [--host 127.0.0.1]

Starts the room process without a window: the engine and the MCP endpoint.
  --room FILE.md   the room's markdown file (its database is FILE.md.commonroom.db); default: your default room
  --port N         TCP port on loopback (default $COMMONROOM_PORT, else ${LIMITS.defaultPort}; 0 picks a free port)
  --host H         127.0.0.1 (default), ::1 or localhost; Commonroom never listens on other addresses`;

/**
 * What `serve` prints once it listens: where to connect, where the operator token is (the person's, for `ce`
 * and the UI), and how to give an agent a token of its own. It never suggests handing the operator token to an
 * agent: with it, an agent could approve its own work.
 */
export function describeRunning(running: RunningRoom, roomArg?: string, ce = ceCommand()): string {
  const info = running.engine.room;
  const url = running.mcpUrl.toString();
  const room = roomArg === undefined ? '' : ` --room ${info.location.markdownPath}`;
  const [claudeCode] = connectSnippets(url, '<its token>');
  return [
    `Commonroom ${RUNNER_VERSION} is serving the room ${info.location.markdownPath}`,
    `  MCP endpoint:   ${url}`,
    `  operator token: ${running.tokenFile}  (yours, for ce and the UI: never give it to an agent, it could approve its own work)`,
    `  agent sandbox:  ${running.engine.sandbox.describe()}`,
    ...(running.uiUrl ? [`  open the UI:    ${running.uiUrl.toString()}  (a one-time sign-in link: keep it private; another: "ce ui-link")`] : []),
    `  connect an agent with a token of its own:`,
    `    ${ce} participant add claude${room} --can read,write     (prints its token once, and how to connect each client)`,
    `    ${claudeCode?.text ?? ''}`,
    `  Gemini CLI, opencode, Codex, Cursor, Claude Desktop: "${ce} participant add --help", or docs/agents.md`,
    `Press Ctrl-C to stop.`,
  ].join('\n');
}

/**
 * The conformance fixtures live in their own build output (out/main/test-fixtures.js, from src-main/testing/),
 * loaded only on this flag: no production module imports them.
 */
async function loadTestFixtures(): Promise<NonNullable<RunnerOptions['extraTools']>> {
  const entry = new URL('./test-fixtures.js', import.meta.url);
  if (!fs.existsSync(entry)) throw new UsageError(`--test-fixtures: ${entry.pathname} is not built (run "npm run build" in a checkout)`);
  const mod = (await import(/* @vite-ignore */ entry.href)) as { testFixtureTools: NonNullable<RunnerOptions['extraTools']> };
  return mod.testFixtureTools;
}

export async function serve(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { room: 'string', port: 'string', host: 'string', help: 'boolean', 'test-fixtures': 'boolean' });
  if (args.flags.help) {
    console.log(SERVE_USAGE);
    return 0;
  }
  if (args.positional.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positional[0])}\n${SERVE_USAGE}`);
  // every option is checked before the room is touched: a refused command creates nothing
  const host = stringFlag(args, 'host') ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new UsageError(refuseHostMessage(host));
  const port = portFlag(args, portFromEnv());
  const roomArg = stringFlag(args, 'room') ?? (process.env.COMMONROOM_ROOM || undefined);
  // the banner names the agent sandbox: its probe runs beside the room's opening, not after it
  const sandboxProbed = probeSandboxAhead();
  const running = await startRunner({
    room: roomArg,
    host,
    port,
    // the process is the room's alone: it hands back what a burst of work left in the heap once quiet
    idleCollect: true,
    ...(args.flags['test-fixtures'] ? { extraTools: await loadTestFixtures() } : {}),
  });
  if (args.flags['test-fixtures']) console.log('test fixtures are ON: the conformance fixture tools are served (never use this for real work)');
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      console.log(`\n${signal}: closing the room…`);
      running.close().then(
        () => {
          console.log('closed: database checkpointed, lock released.');
          resolve(0);
        },
        (error: unknown) => {
          console.error('error while closing:', error);
          resolve(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    process.on('SIGHUP', stop);
    // printed only once the signal handlers are in place: whoever reads the endpoint may stop us at once
    void sandboxProbed.then(() => {
      if (!stopping) console.log(describeRunning(running, roomArg));
    });
  });
}
