import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RoomError } from '../../common/errors';
import { findRunningRoom, resolvePaths } from '../../engine/index';
import { portFromEnv } from '../../server/runner';
import { parseArgs, portFlag, stringFlag, UsageError } from '../args';
import { runTool, serviceManager, type ManagerContext, type ServiceManager } from './managers';
import { installedServeArgs, roomAndPort, type ServiceSpec } from './units';

export const SERVICE_USAGE = `usage: commonroom service install [--room FILE.md] [--port N]
       commonroom service uninstall
       commonroom service status [--json]

Runs your room as your login service, so it keeps working with no window open and an app restart or
update ends nothing: a systemd user unit on Linux (~/.config/systemd/user/commonroom.service), a launchd
agent on macOS (~/Library/LaunchAgents/dev.commonroom.room.plist), a Task Scheduler task at logon on Windows.
The desktop app then shows that room instead of starting its own. Shells still end when the room process
itself restarts (they live in its memory).
  --room FILE.md   the room it serves (default: $COMMONROOM_ROOM, else your default room)
  --port N         its loopback port (default $COMMONROOM_PORT, else 7391)
  --json           status as JSON`;

/** Variables the room reads, carried into the service when set (a login service starts with few of its own). */
const CARRIED = ['PATH', 'SHELL', 'LANG', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'COMMONROOM_DATA_DIR', 'COMMONROOM_CONFIG_DIR', 'COMMONROOM_LIMITS'];

/** The service's status, as `status` prints it. */
export interface ServiceStatus {
  platform: NodeJS.Platform;
  manager: ServiceManager['kind'];
  file: string;
  installed: boolean;
  running: boolean;
  pid: number | null;
  detail: string;
  /** The room file it serves, or null for the default room. */
  room: string | null;
  /** Its MCP endpoint while a room process serves that room. */
  url: string | null;
}

/** The person's home folder, as the service tools see it (HOME, USERPROFILE on Windows). */
function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

function context(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, run = runTool): ManagerContext {
  return { platform, env, home: homeOf(env), configDir: resolvePaths(env, process.platform, homeOf(env)).configDir, run };
}

function servedUrl(room: string | undefined, env: NodeJS.ProcessEnv): string | null {
  try {
    const found = findRunningRoom(room, resolvePaths(env));
    return found ? new URL('/mcp', found.endpoint).toString() : null;
  } catch {
    return null;
  }
}

export function serviceStatus(manager: ServiceManager, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): ServiceStatus {
  const state = manager.state();
  const text = fs.existsSync(manager.file) ? fs.readFileSync(manager.file, manager.kind === 'task' ? 'utf16le' : 'utf8') : null;
  const args = text === null ? null : installedServeArgs(manager.kind, text);
  const room = args ? (roomAndPort(args).room ?? null) : null;
  return { platform, manager: manager.kind, file: manager.file, ...state, installed: state.installed || text !== null, room, url: state.running ? servedUrl(room ?? undefined, env) : null };
}

function describeStatus(s: ServiceStatus, what: string): string {
  if (!s.installed) return `not installed (${what} would be ${s.file}): "commonroom service install" runs your room at login`;
  return [
    `installed: ${what} ${s.file}`,
    `  running:  ${s.running ? `yes${s.pid ? ` (pid ${s.pid})` : ''}` : 'no'}  [${s.detail}]`,
    `  room:     ${s.room ?? 'your default room'}`,
    `  URL:      ${s.url ?? (s.running ? 'starting (no endpoint recorded yet)' : 'not served')}`,
  ].join('\n');
}

/** `commonroom service …`; `platform`, `env` and `run` are the tests' seams. */
export async function service(argv: readonly string[], platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env, run = runTool): Promise<number> {
  const args = parseArgs(argv, { room: 'string', port: 'string', json: 'boolean', help: 'boolean' });
  if (args.flags.help) {
    console.log(SERVICE_USAGE);
    return 0;
  }
  const [verb, ...extra] = args.positional;
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}\n${SERVICE_USAGE}`);
  if (verb !== 'install' && verb !== 'uninstall' && verb !== 'status') throw new UsageError(`${verb === undefined ? 'say what to do' : `unknown action ${JSON.stringify(verb)}`}: install, uninstall or status\n${SERVICE_USAGE}`);
  const manager = serviceManager(context(env, platform, run));

  if (verb === 'status') {
    const status = serviceStatus(manager, env, platform);
    if (args.flags.json) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    else console.log(describeStatus(status, manager.what));
    return 0;
  }

  if (verb === 'uninstall') {
    const removed = manager.uninstall();
    console.log(removed ? `uninstalled: the room's service is stopped and ${manager.file} removed (its shells ended with it)` : 'not installed: nothing to do');
    return 0;
  }

  const roomArg = stringFlag(args, 'room') ?? (env.COMMONROOM_ROOM || undefined);
  const room = roomArg === undefined ? undefined : path.resolve(roomArg);
  const port = portFlag(args, portFromEnv(env));
  // what serve would refuse at every start is refused now, before anything is installed
  if (room !== undefined && !fs.existsSync(path.dirname(room))) throw new RoomError('NOT_FOUND', `the folder ${path.dirname(room)} does not exist: create it first, or pass another --room`);
  // one process holds a room: a service started beside the app's own room (or a serve) would fail at every start
  const before = manager.state();
  if (!before.running && servedUrl(room, env)) {
    throw new RoomError('ROOM_LOCKED', 'the room is open in another process now (the desktop app, or a "commonroom serve"): quit it first, then install; the app afterwards shows the service\'s room');
  }
  const script = fs.realpathSync(process.argv[1] ?? '');
  const carried = Object.fromEntries(CARRIED.filter((k) => env[k]).map((k) => [k, env[k] as string]));
  const spec: ServiceSpec = { node: process.execPath, script, room, port, env: platform === 'win32' ? {} : carried, home: homeOf(env) };
  manager.install(spec);
  const after = serviceStatus(manager, env, platform);
  console.log(`installed and started: ${manager.what} ${manager.file}\n  room: ${room ?? 'your default room'}, port ${port}\n  "commonroom service status" says how it is; the desktop app now shows this room.`);
  if (before.running) console.log('  it was running: restarted with these settings (its shells ended, as on any restart of the room process)');
  if (platform === 'win32' && Object.keys(carried).some((k) => k.startsWith('COMMONROOM_'))) {
    console.log('  note: a task sees your user environment, not this shell\'s: set COMMONROOM_* with "setx" for it to see them');
  }
  if (!after.running) console.log(`  it is not running yet [${after.detail}]: "commonroom service status" again in a moment`);
  return 0;
}
