import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { RoomError } from '../../common/errors';
import { LAUNCHD_LABEL, launchdPlist, SYSTEMD_UNIT_NAME, systemdUnit, WINDOWS_TASK_NAME, windowsTaskXml, type ServiceSpec } from './units';

/** Runs a program to completion (the platform's service tool); tests pass a recorder. */
export type RunTool = (program: string, args: string[]) => { status: number | null; stdout: string; stderr: string; error?: Error };

export const runTool: RunTool = (program, args) => {
  const r = spawnSync(program, args, { encoding: 'utf8', timeout: 60_000, windowsHide: true });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ...(r.error ? { error: r.error } : {}) };
};

/** How the service stands, as its platform's tool reports it. */
export interface ServiceState {
  installed: boolean;
  running: boolean;
  /** The room process's pid, when the tool says it. */
  pid: number | null;
  /** The tool's own words ("active (running)", "state = running", "Status: Ready"…), or why it could not say. */
  detail: string;
}

/** One platform's login service: where its file goes, and install / uninstall / state through its own tool. */
export interface ServiceManager {
  kind: 'systemd' | 'launchd' | 'task';
  /** "a systemd user unit" */
  what: string;
  /** The file it writes (the unit, the plist, the task's XML). */
  file: string;
  install(spec: ServiceSpec): void;
  /** False when it was not installed. */
  uninstall(): boolean;
  state(): ServiceState;
}

export interface ManagerContext {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
  /** Commonroom's config folder (Windows keeps the task's XML there). */
  configDir: string;
  run: RunTool;
}

function said(r: ReturnType<RunTool>): string {
  if (r.error) return r.error.message;
  return (r.stderr.trim() || r.stdout.trim() || `exit ${r.status}`).split('\n').slice(0, 3).join(' / ');
}

function fail(tool: string, r: ReturnType<RunTool>, what: string): never {
  throw new RoomError('UNAVAILABLE', `${what}: "${tool}" said: ${said(r)}`);
}

function writeFile(file: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, content, { mode: 0o600 });
  fs.renameSync(temp, file);
}

/** Linux: a systemd user unit, run by the person's user manager (`systemctl --user`). */
function systemd(ctx: ManagerContext): ServiceManager {
  const dir = path.join(ctx.env.XDG_CONFIG_HOME || path.join(ctx.home, '.config'), 'systemd', 'user');
  const file = path.join(dir, SYSTEMD_UNIT_NAME);
  const ctl = (...args: string[]) => ctx.run('systemctl', ['--user', ...args]);
  const reachable = () => {
    const r = ctl('show-environment');
    if (r.status !== 0) {
      fail('systemctl --user', r, 'the systemd user manager does not answer, so no user service can run here (it needs a login session with systemd; on a machine you reach over SSH run "loginctl enable-linger" once and log in again), or run "commonroom serve" from your own startup');
    }
  };
  return {
    kind: 'systemd',
    what: 'a systemd user unit',
    file,
    install(spec) {
      reachable();
      const wasActive = ctl('is-active', SYSTEMD_UNIT_NAME).stdout.trim() === 'active';
      writeFile(file, systemdUnit(spec));
      const reload = ctl('daemon-reload');
      if (reload.status !== 0) fail('systemctl --user daemon-reload', reload, 'systemd did not read the unit');
      const enable = ctl('enable', '--now', SYSTEMD_UNIT_NAME);
      if (enable.status !== 0) fail(`systemctl --user enable --now ${SYSTEMD_UNIT_NAME}`, enable, 'the service did not start');
      // installed again while it runs: `enable --now` leaves a running unit as it is; the new settings need a restart
      if (wasActive) {
        const restart = ctl('restart', SYSTEMD_UNIT_NAME);
        if (restart.status !== 0) fail(`systemctl --user restart ${SYSTEMD_UNIT_NAME}`, restart, 'the service did not restart');
      }
    },
    uninstall() {
      if (!fs.existsSync(file)) return false;
      reachable();
      const disable = ctl('disable', '--now', SYSTEMD_UNIT_NAME);
      if (disable.status !== 0) fail(`systemctl --user disable --now ${SYSTEMD_UNIT_NAME}`, disable, 'the service did not stop');
      fs.rmSync(file, { force: true });
      ctl('daemon-reload');
      return true;
    },
    state() {
      const installed = fs.existsSync(file);
      const r = ctl('show', SYSTEMD_UNIT_NAME, '--property=LoadState,ActiveState,SubState,MainPID,UnitFileState');
      if (r.status !== 0) return { installed, running: false, pid: null, detail: `systemctl --user does not answer: ${said(r)}` };
      const props = Object.fromEntries(r.stdout.split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      const pid = Number(props.MainPID);
      const running = props.ActiveState === 'active';
      return { installed, running, pid: running && pid > 0 ? pid : null, detail: `${props.ActiveState ?? '?'} (${props.SubState ?? '?'}), ${props.UnitFileState || 'not enabled'}` };
    },
  };
}

/** macOS: a launchd agent in the person's GUI domain (`launchctl bootstrap gui/UID`). */
function launchd(ctx: ManagerContext): ServiceManager {
  const file = path.join(ctx.home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const domain = `gui/${process.getuid?.() ?? 0}`;
  const target = `${domain}/${LAUNCHD_LABEL}`;
  return {
    kind: 'launchd',
    what: 'a launchd agent',
    file,
    install(spec) {
      const log = path.join(ctx.home, 'Library', 'Logs', 'Commonroom', 'room.log');
      fs.mkdirSync(path.dirname(log), { recursive: true, mode: 0o700 });
      writeFile(file, launchdPlist(spec, log));
      ctx.run('launchctl', ['bootout', target]); // an earlier copy, if loaded (its absence is no error here)
      const r = ctx.run('launchctl', ['bootstrap', domain, file]);
      if (r.status !== 0) fail(`launchctl bootstrap ${domain}`, r, 'launchd did not load the agent');
    },
    uninstall() {
      if (!fs.existsSync(file)) return false;
      ctx.run('launchctl', ['bootout', target]);
      fs.rmSync(file, { force: true });
      return true;
    },
    state() {
      const installed = fs.existsSync(file);
      const r = ctx.run('launchctl', ['print', target]);
      if (r.status !== 0) return { installed, running: false, pid: null, detail: 'not loaded' };
      const state = /^\s*state = (.+)$/m.exec(r.stdout)?.[1]?.trim() ?? 'unknown';
      const pid = Number(/^\s*pid = (\d+)$/m.exec(r.stdout)?.[1]);
      return { installed, running: state === 'running', pid: pid > 0 ? pid : null, detail: `state = ${state}` };
    },
  };
}

/** Windows: a per-user Task Scheduler task at logon (`schtasks /Create /XML`), started at once. */
function task(ctx: ManagerContext): ServiceManager {
  const file = path.join(ctx.configDir, 'service', 'commonroom-task.xml');
  return {
    kind: 'task',
    what: 'a Task Scheduler task',
    file,
    install(spec) {
      const user = `${ctx.env.USERDOMAIN ? `${ctx.env.USERDOMAIN}\\` : ''}${ctx.env.USERNAME || os.userInfo().username}`;
      // schtasks reads a task's XML as UTF-16 (with its byte order mark), as Task Scheduler exports it
      writeFile(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(windowsTaskXml(spec, user), 'utf16le')]));
      const create = ctx.run('schtasks', ['/Create', '/TN', WINDOWS_TASK_NAME, '/XML', file, '/F']);
      if (create.status !== 0) fail('schtasks /Create', create, 'Task Scheduler did not take the task');
      const run = ctx.run('schtasks', ['/Run', '/TN', WINDOWS_TASK_NAME]);
      if (run.status !== 0) fail('schtasks /Run', run, 'the task did not start');
    },
    uninstall() {
      const known = ctx.run('schtasks', ['/Query', '/TN', WINDOWS_TASK_NAME]).status === 0;
      if (!known && !fs.existsSync(file)) return false;
      ctx.run('schtasks', ['/End', '/TN', WINDOWS_TASK_NAME]);
      const r = ctx.run('schtasks', ['/Delete', '/TN', WINDOWS_TASK_NAME, '/F']);
      if (known && r.status !== 0) fail('schtasks /Delete', r, 'Task Scheduler kept the task');
      fs.rmSync(file, { force: true });
      return true;
    },
    state() {
      const r = ctx.run('schtasks', ['/Query', '/TN', WINDOWS_TASK_NAME, '/FO', 'LIST']);
      if (r.status !== 0) return { installed: false, running: false, pid: null, detail: 'no such task' };
      const status = /^Status:\s*(.+)$/m.exec(r.stdout)?.[1]?.trim() ?? 'unknown';
      return { installed: true, running: status === 'Running', pid: null, detail: `Status: ${status}` };
    },
  };
}

/** The platform's login service, or a refusal that says what to do instead. */
export function serviceManager(ctx: ManagerContext): ServiceManager {
  if (ctx.platform === 'linux') return systemd(ctx);
  if (ctx.platform === 'darwin') return launchd(ctx);
  if (ctx.platform === 'win32') return task(ctx);
  throw new RoomError(
    'UNAVAILABLE',
    `commonroom service knows the login services of Linux (systemd), macOS (launchd) and Windows (Task Scheduler), not ${ctx.platform}'s: start "commonroom serve" from your own startup instead (it stops cleanly on SIGTERM)`,
  );
}
