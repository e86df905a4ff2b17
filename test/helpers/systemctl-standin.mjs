#!/usr/bin/env node
// A stand-in for `systemctl --user`, for machines where systemd's user manager cannot be reached (containers,
// CI). It does what systemctl(1) documents for the verbs `commonroom service` uses, on the same files:
//  - unit files in $XDG_CONFIG_HOME/systemd/user (else ~/.config/systemd/user); `enable` links the unit into
//    default.target.wants/ per its [Install] WantedBy= and `disable` removes the link; an unknown unit's enable
//    fails ("Unit file X does not exist."), exit 1;
//  - `--now` starts (or stops) it as well: ExecStart= split by systemd's quoting (double quotes, backslash
//    escapes, %% and $$), Environment= and WorkingDirectory= applied; stopping sends SIGTERM to the main
//    process and, with KillMode=mixed, SIGKILL to what is left of its group after it exits or TimeoutStopSec=;
//  - `show UNIT --property=A,B` prints A=… lines (LoadState=not-found for an unknown unit, exit 0); `is-active`
//    prints active or inactive (exit 0 or 3); `restart` stops then starts it;
//  - `show-environment` and `daemon-reload` answer 0, or, with SYSTEMCTL_STANDIN_NO_BUS=1, fail as systemctl
//    does without a user bus: "Failed to connect to bus: No medium found", exit 1.
// Every call is appended to $HOME/.systemctl-standin.log (one JSON argv per line); the main pid lives in
// $HOME/.systemctl-standin.json.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const argv = process.argv.slice(2);
const home = os.homedir();
fs.appendFileSync(path.join(home, '.systemctl-standin.log'), `${JSON.stringify(argv)}\n`);
const stateFile = path.join(home, '.systemctl-standin.json');
const state = fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, 'utf8')) : {};
const save = () => fs.writeFileSync(stateFile, JSON.stringify(state));
const unitDir = path.join(process.env.XDG_CONFIG_HOME || path.join(home, '.config'), 'systemd', 'user');

function die(message, code = 1) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

if (argv[0] !== '--user') die('the stand-in answers only for the user manager (--user)');
if (process.env.SYSTEMCTL_STANDIN_NO_BUS === '1') die('Failed to connect to bus: No medium found');
const rest = argv.slice(1);
const now = rest.includes('--now');
const words = rest.filter((a) => !a.startsWith('--'));
const [verb, unit] = words;

function unquote(line) {
  const out = [];
  for (const m of line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    const raw = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
    out.push(raw.replace(/%%/g, '%').replace(/\$\$/g, '$'));
  }
  return out;
}

function readUnit(name) {
  const file = path.join(unitDir, name);
  if (!fs.existsSync(file)) return null;
  const text = fs.readFileSync(file, 'utf8');
  const values = (key) => [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]);
  return { file, text, values };
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function start(name) {
  const u = readUnit(name);
  if (!u) die(`Failed to start ${name}: Unit ${name} not found.`);
  if (state[name]?.pid && alive(state[name].pid)) return;
  const [program, ...args] = unquote(u.values('ExecStart')[0] ?? '');
  const env = { ...process.env };
  for (const assignment of u.values('Environment').flatMap(unquote)) {
    const at = assignment.indexOf('=');
    env[assignment.slice(0, at)] = assignment.slice(at + 1);
  }
  const log = fs.openSync(path.join(home, '.systemctl-standin.out'), 'a');
  const child = spawn(program, args, { cwd: u.values('WorkingDirectory')[0]?.replace(/%%/g, '%') || home, env, detached: true, stdio: ['ignore', log, log] });
  child.unref();
  state[name] = { pid: child.pid, since: Date.now() };
  save();
}

function stop(name) {
  const pid = state[name]?.pid;
  if (!pid) return;
  const u = readUnit(name);
  const timeout = Number(u?.values('TimeoutStopSec')[0] ?? 90) * 1000;
  if (alive(pid)) process.kill(pid, 'SIGTERM');
  const until = Date.now() + timeout;
  while (alive(pid) && Date.now() < until) sleep(50);
  // the rest of the unit's processes (here: its process group) get SIGKILL
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // none left
  }
  delete state[name];
  save();
}

switch (verb) {
  case 'show-environment':
    for (const [k, v] of Object.entries(process.env)) process.stdout.write(`${k}=${v}\n`);
    break;
  case 'daemon-reload':
    break;
  case 'enable': {
    const u = readUnit(unit);
    if (!u) die(`Failed to enable unit: Unit file ${unit} does not exist.`);
    for (const target of u.values('WantedBy')) {
      const link = path.join(unitDir, `${target}.wants`, unit);
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.rmSync(link, { force: true });
      fs.symlinkSync(u.file, link);
      process.stderr.write(`Created symlink ${link} → ${u.file}.\n`);
    }
    if (now) start(unit);
    break;
  }
  case 'disable': {
    const u = readUnit(unit);
    if (!u && !state[unit]) die(`Failed to disable unit: Unit file ${unit} does not exist.`);
    if (now) stop(unit);
    for (const target of u ? u.values('WantedBy') : []) {
      const link = path.join(unitDir, `${target}.wants`, unit);
      if (fs.existsSync(link)) {
        fs.rmSync(link);
        process.stderr.write(`Removed "${link}".\n`);
      }
    }
    break;
  }
  case 'is-active': {
    // prints the state; exits 0 only when active (systemctl(1))
    const active = Boolean(state[unit]?.pid && alive(state[unit].pid));
    process.stdout.write(`${active ? 'active' : 'inactive'}\n`);
    process.exit(active ? 0 : 3);
    break;
  }
  case 'restart':
    if (!readUnit(unit)) die(`Failed to restart ${unit}: Unit ${unit} not found.`);
    stop(unit);
    start(unit);
    break;
  case 'show': {
    const u = readUnit(unit);
    const pid = state[unit]?.pid && alive(state[unit].pid) ? state[unit].pid : 0;
    const enabled = u && u.values('WantedBy').some((t) => fs.existsSync(path.join(unitDir, `${t}.wants`, unit)));
    const props = {
      LoadState: u ? 'loaded' : 'not-found',
      ActiveState: pid ? 'active' : 'inactive',
      SubState: pid ? 'running' : 'dead',
      MainPID: String(pid),
      UnitFileState: u ? (enabled ? 'enabled' : 'disabled') : '',
    };
    const wanted = (rest.find((a) => a.startsWith('--property='))?.slice('--property='.length).split(',')) ?? Object.keys(props);
    for (const key of wanted) process.stdout.write(`${key}=${props[key] ?? ''}\n`);
    break;
  }
  default:
    die(`Unknown command verb '${verb}'.`);
}
