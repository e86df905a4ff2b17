/**
 * `commonroom service install|uninstall|status` (issue 43): the unit, plist and task XML it writes (pure
 * generators, read back the way each platform's tool reads them), and the Linux flow end to end through a
 * `systemctl` stand-in on PATH (test/helpers/systemctl-standin.mjs, shaped by systemctl(1)): this container
 * has no reachable systemd user manager, so the stand-in runs the unit's ExecStart= itself — a real
 * `commonroom serve` — and the real `systemctl --user` run is proven only where COMMONROOM_TEST_REAL_SYSTEMD=1
 * and a user manager answers. macOS and Windows: the commands run are checked with a recorder; not run for real.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { service } from '../../src-main/cli/service/command';
import type { RunTool } from '../../src-main/cli/service/managers';
import {
  installedServeArgs,
  launchdPlist,
  roomAndPort,
  systemdUnit,
  systemdWords,
  windowsTaskXml,
  windowsWords,
  type ServiceSpec,
} from '../../src-main/cli/service/units';
import { findRunningRoom } from '../../src-main/engine/index';
import { BIN_COMMONROOM, makeHome } from '../helpers/env';
import { startServe, stopServe } from '../helpers/serve';
import { commonroom, standinHome } from '../helpers/service-standin';

const odd = '/home/a b/100% "real" $HOME\\x/notes & <more>.md';
const spec: ServiceSpec = {
  node: '/opt/node 22/bin/node',
  script: '/opt/commonroom/bin/commonroom.js',
  room: odd,
  port: 7391,
  env: { PATH: '/usr/bin:/opt/a b/bin', COMMONROOM_LIMITS: '{"maxShellsPerAgent": 8}' },
  home: '/home/a b',
};

describe('what the service files say', () => {
  it('the systemd user unit runs serve for the room at login, restarts on failure, and stops it by SIGTERM first', () => {
    const unit = systemdUnit(spec);
    const exec = /^ExecStart=(.*)$/m.exec(unit)?.[1] ?? '';
    // systemd's quoting read back: every word as given, the room's %, $, quotes and backslash included
    expect(systemdWords(exec)).toEqual([spec.node, spec.script, 'serve', '--room', odd, '--port', '7391']);
    expect(exec).toContain('100%% ');
    expect(exec).toContain('$$HOME');
    expect(unit).toMatch(/^Environment="COMMONROOM_LIMITS=\{\\"maxShellsPerAgent\\": 8\}"$/m);
    expect(unit).toMatch(/^Environment="PATH=\/usr\/bin:\/opt\/a b\/bin"$/m);
    for (const line of ['Type=simple', 'Restart=on-failure', 'KillMode=mixed', 'TimeoutStopSec=30', 'WantedBy=default.target', '[Install]']) expect(unit.split('\n')).toContain(line);
    expect(roomAndPort(installedServeArgs('systemd', unit) ?? [])).toEqual({ room: odd, port: 7391 });
    expect(() => systemdUnit({ ...spec, room: '/x\n[Service]\nExecStart=/bin/evil' })).toThrow(/control character/);
    // no room: serve's own default (the person's default room)
    expect(installedServeArgs('systemd', systemdUnit({ ...spec, room: undefined }))).toEqual([spec.script, 'serve', '--port', '7391']);
  });

  it('the launchd agent loads at login, restarts only after a failure, and logs beside the other apps', () => {
    const plist = launchdPlist(spec, '/Users/a/Library/Logs/Commonroom/room.log');
    expect(plist).toContain('<key>Label</key><string>dev.commonroom.room</string>');
    expect(plist).toContain('<key>RunAtLoad</key><true/>');
    expect(plist).toContain('<dict><key>SuccessfulExit</key><false/></dict>');
    expect(plist).toContain('&amp; &lt;more&gt;');
    expect(plist).toContain('<key>COMMONROOM_LIMITS</key><string>{&quot;maxShellsPerAgent&quot;: 8}</string>');
    expect(installedServeArgs('launchd', plist)).toEqual([spec.script, 'serve', '--room', odd, '--port', '7391']);
  });

  it('the Windows task starts at the person\'s logon as them, least privilege, no time limit, its arguments quoted for CommandLineToArgvW', () => {
    const winSpec = { ...spec, node: 'C:\\Program Files\\nodejs\\node.exe', script: 'C:\\Users\\a b\\commonroom\\bin\\commonroom.js', room: 'C:\\Users\\a b\\rooms\\say "hi"\\' };
    const xml = windowsTaskXml(winSpec, 'HOST\\a b');
    expect(xml).toContain('<LogonTrigger><Enabled>true</Enabled><UserId>HOST\\a b</UserId></LogonTrigger>');
    expect(xml).toContain('<LogonType>InteractiveToken</LogonType><RunLevel>LeastPrivilege</RunLevel>');
    expect(xml).toContain('<ExecutionTimeLimit>PT0S</ExecutionTimeLimit>');
    expect(xml).toContain('<Command>C:\\Program Files\\nodejs\\node.exe</Command>');
    expect(xml.split('\r\n')[0]).toBe('<?xml version="1.0" encoding="UTF-16"?>');
    expect(installedServeArgs('task', xml)).toEqual([winSpec.script, 'serve', '--room', winSpec.room, '--port', '7391']);
    expect(windowsWords('a "b c" d\\\\"e f" g\\h')).toEqual(['a', 'b c', 'd\\e f', 'g\\h']);
  });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const cleanups: Array<() => void | Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('commonroom service on Linux, through a systemctl stand-in (the real systemctl --user is not reachable here)', () => {
  it('install writes the unit and starts the room through systemctl --user; status says installed, running, room and URL; uninstall stops it (its shells end) and removes the unit', async () => {
    const t = standinHome();
    const room = path.join(t.home.root, 'work', 'night room.md');
    cleanups.push(() => {
      commonroom(t.env, ['service', 'uninstall']);
      t.home.cleanup();
    });
    // a room in a folder that does not exist would fail at every start: refused before anything is written
    const early = commonroom(t.env, ['service', 'install', '--room', room]);
    expect(early.status).toBe(1);
    expect(early.stderr).toContain(`the folder ${path.dirname(room)} does not exist`);
    expect(fs.existsSync(t.unit)).toBe(false);
    fs.mkdirSync(path.dirname(room));
    const installed = commonroom(t.env, ['service', 'install', '--room', room]);
    expect(installed.stderr).toBe('');
    expect(installed.status).toBe(0);
    expect(installed.stdout).toContain(`installed and started: a systemd user unit ${t.unit}`);
    const show = ['--user', 'show', 'commonroom.service', '--property=LoadState,ActiveState,SubState,MainPID,UnitFileState'];
    expect(t.calls()).toEqual([
      show,
      ['--user', 'show-environment'],
      ['--user', 'is-active', 'commonroom.service'],
      ['--user', 'daemon-reload'],
      ['--user', 'enable', '--now', 'commonroom.service'],
      show,
    ]);
    expect(fs.statSync(t.unit).mode & 0o777).toBe(0o600);
    expect(fs.readlinkSync(path.join(path.dirname(t.unit), 'default.target.wants', 'commonroom.service'))).toBe(t.unit);
    // what the unit ran is a real room process serving that room
    await expect.poll(() => findRunningRoom(room, t.home.paths), { timeout: 20_000 }).not.toBeNull();
    const endpoint = findRunningRoom(room, t.home.paths)!;

    const status = JSON.parse(commonroom(t.env, ['service', 'status', '--json']).stdout) as Record<string, unknown>;
    expect(status).toMatchObject({ platform: 'linux', manager: 'systemd', file: t.unit, installed: true, running: true, room, url: new URL('/mcp', endpoint.endpoint).toString() });
    const pid = status.pid as number;
    expect(alive(pid)).toBe(true);
    const human = commonroom(t.env, ['service', 'status']).stdout;
    expect(human).toContain(`installed: a systemd user unit ${t.unit}`);
    expect(human).toContain(`running:  yes (pid ${pid})  [active (running), enabled]`);
    expect(human).toContain(`room:     ${room}`);
    expect(human).toContain(`URL:      ${new URL('/mcp', endpoint.endpoint).toString()}`);

    // a shell in the service's room: volatile, it ends with the room process
    const opened = await fetch(new URL('/api/shell_open', endpoint.endpoint), {
      method: 'POST',
      headers: { authorization: `Bearer ${endpoint.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ shell: '/bin/sh' }),
    });
    const shellPid = ((await opened.json()) as { result: { shell: { pid: number } } }).result.shell.pid;
    expect(alive(shellPid)).toBe(true);

    // installed again while it runs (another port): the running unit is restarted to take the new settings
    const again = commonroom(t.env, ['service', 'install', '--room', room, '--port', '0']);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('it was running: restarted with these settings');
    expect(t.calls().filter((c) => c[1] === 'restart')).toEqual([['--user', 'restart', 'commonroom.service']]);
    expect(alive(pid)).toBe(false);
    expect(alive(shellPid)).toBe(false);
    const status2 = JSON.parse(commonroom(t.env, ['service', 'status', '--json']).stdout) as { pid: number; running: boolean };
    expect(status2.running).toBe(true);
    await expect.poll(() => findRunningRoom(room, t.home.paths)?.endpoint, { timeout: 20_000 }).toMatch(/^http:/);

    const removed = commonroom(t.env, ['service', 'uninstall']);
    expect(removed.status).toBe(0);
    expect(removed.stdout).toContain(`uninstalled: the room's service is stopped and ${t.unit} removed`);
    expect(t.calls().slice(-3)).toEqual([['--user', 'show-environment'], ['--user', 'disable', '--now', 'commonroom.service'], ['--user', 'daemon-reload']]);
    expect(alive(status2.pid)).toBe(false);
    expect(fs.existsSync(t.unit)).toBe(false);
    expect(findRunningRoom(room, t.home.paths)).toBeNull();
    expect(commonroom(t.env, ['service', 'status']).stdout).toMatch(/^not installed \(a systemd user unit would be /);
    expect(commonroom(t.env, ['service', 'uninstall']).stdout).toContain('not installed: nothing to do');
  }, 120_000);

  it('install refuses while another process holds the room, and writes nothing', async () => {
    const t = standinHome();
    const room = path.join(t.home.root, 'room.md');
    const serve = await startServe({ ...t.home, env: t.env }, ['--room', room]);
    cleanups.push(async () => {
      await stopServe(serve);
      t.home.cleanup();
    });
    const r = commonroom(t.env, ['service', 'install', '--room', room]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/the room is open in another process now .*quit it first, then install/);
    expect(fs.existsSync(t.unit)).toBe(false);
    expect(t.calls().some((c) => c.includes('enable'))).toBe(false);
  }, 120_000);

  it('without a reachable user manager it says so, with what to do, and writes nothing', () => {
    const t = standinHome();
    cleanups.push(() => t.home.cleanup());
    const r = commonroom({ ...t.env, SYSTEMCTL_STANDIN_NO_BUS: '1' }, ['service', 'install']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the systemd user manager does not answer');
    expect(r.stderr).toContain('loginctl enable-linger');
    expect(r.stderr).toContain('Failed to connect to bus: No medium found');
    expect(fs.existsSync(t.unit)).toBe(false);
  });

  const realSystemd = process.env.COMMONROOM_TEST_REAL_SYSTEMD === '1' && spawnSync('systemctl', ['--user', 'show-environment']).status === 0;
  // replaces the machine's own commonroom.service: only on a machine set aside for it
  it.skipIf(!realSystemd)('with the real systemctl --user (COMMONROOM_TEST_REAL_SYSTEMD=1 and a user manager): install, status, uninstall', async () => {
    const home = makeHome();
    const env = { ...home.env, COMMONROOM_PORT: '0' };
    const room = path.join(home.root, 'room.md');
    try {
      expect(commonroom(env, ['service', 'install', '--room', room]).status).toBe(0);
      await expect.poll(() => findRunningRoom(room, home.paths), { timeout: 20_000 }).not.toBeNull();
      expect(JSON.parse(commonroom(env, ['service', 'status', '--json']).stdout)).toMatchObject({ installed: true, running: true, room });
    } finally {
      expect(commonroom(env, ['service', 'uninstall']).status).toBe(0);
      home.cleanup();
    }
  }, 120_000);
});

describe('commonroom service elsewhere', () => {
  function recorder(answers: Record<string, { status: number; stdout?: string }> = {}) {
    const calls: string[][] = [];
    const run: RunTool = (program, args) => {
      calls.push([program, ...args]);
      const a = answers[`${program} ${args[0]}`] ?? { status: 0 };
      return { status: a.status, stdout: a.stdout ?? '', stderr: a.status === 0 ? '' : 'refused' };
    };
    return { calls, run };
  }

  it('macOS: the plist goes to ~/Library/LaunchAgents and is bootstrapped into gui/UID; uninstall boots it out', async () => {
    const home = makeHome();
    cleanups.push(() => home.cleanup());
    const env = { ...home.env, HOME: home.root };
    const { calls, run } = recorder({ 'launchctl print': { status: 0, stdout: '\tstate = running\n\tpid = 4242\n' } });
    expect(await service(['install', '--port', '7400'], 'darwin', env, run)).toBe(0);
    const plist = path.join(home.root, 'Library/LaunchAgents/dev.commonroom.room.plist');
    const uid = process.getuid?.() ?? 0;
    expect(calls.filter((c) => c[1] !== 'print')).toEqual([
      ['launchctl', 'bootout', `gui/${uid}/dev.commonroom.room`],
      ['launchctl', 'bootstrap', `gui/${uid}`, plist],
    ]);
    expect(roomAndPort(installedServeArgs('launchd', fs.readFileSync(plist, 'utf8')) ?? [])).toEqual({ room: undefined, port: 7400 });
    expect(await service(['uninstall'], 'darwin', env, run)).toBe(0);
    expect(calls.at(-1)).toEqual(['launchctl', 'bootout', `gui/${uid}/dev.commonroom.room`]);
    expect(fs.existsSync(plist)).toBe(false);
  });

  it('Windows: the task is created from its XML (UTF-16) with schtasks and started; uninstall ends and deletes it', async () => {
    const home = makeHome();
    cleanups.push(() => home.cleanup());
    const env = { ...home.env, USERPROFILE: home.root, HOME: home.root, USERDOMAIN: 'HOST', USERNAME: 'person' };
    const { calls, run } = recorder();
    expect(await service(['install'], 'win32', env, run)).toBe(0);
    const xml = path.join(home.paths.configDir, 'service', 'commonroom-task.xml');
    expect(calls.filter((c) => c[1] !== '/Query')).toEqual([
      ['schtasks', '/Create', '/TN', '\\Commonroom\\Room', '/XML', xml, '/F'],
      ['schtasks', '/Run', '/TN', '\\Commonroom\\Room'],
    ]);
    const bytes = fs.readFileSync(xml);
    expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
    expect(bytes.subarray(2).toString('utf16le')).toContain('<UserId>HOST\\person</UserId>');
    expect(await service(['uninstall'], 'win32', env, run)).toBe(0);
    expect(calls.slice(-2)).toEqual([
      ['schtasks', '/End', '/TN', '\\Commonroom\\Room'],
      ['schtasks', '/Delete', '/TN', '\\Commonroom\\Room', '/F'],
    ]);
  });

  it('on a platform without a known login service it refuses, saying what to do instead', async () => {
    const { calls, run } = recorder();
    await expect(service(['install'], 'freebsd', process.env, run)).rejects.toThrow(/knows the login services of Linux \(systemd\), macOS \(launchd\) and Windows \(Task Scheduler\), not freebsd's: start "commonroom serve" from your own startup instead/);
    await expect(service(['status'], 'aix', process.env, run)).rejects.toThrow(/not aix's/);
    expect(calls).toEqual([]);
    // and a wrong action is a usage mistake (exit 2), before anything is looked at
    const r = spawnSync(process.execPath, [BIN_COMMONROOM, 'service', 'start'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown action "start": install, uninstall or status');
  });
});
