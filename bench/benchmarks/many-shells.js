// many-shells: a room with 100 shells at once, each printing a line every 100 ms, 10 of them watched live
// through the UI door (the socket the app's Terminals screen and `ce shell attach` use, acknowledging each
// frame), every shell's status tracked: the room process's CPU per second and its resident memory per shell,
// against tmux (the multiplexer people use for this) running the same 100 commands in 100 windows of one
// session with one client attached (in a PTY of this process, drained), in the same run, alternating rounds.
// Only the multiplexer is measured on each side (the room process; the tmux server and its client): the 100
// shells and their sleeps are the same processes on both. Memory is measured three ways: early (13 s in), with
// every shell's scrollback full (each prints a 12,000-line file once: more than the room's 10,000 lines and
// tmux's 2,000), and for shells idle at a prompt (a fresh room or server of 100 interactive bash, read once they
// have sat there past the room's 30 s quiet period, beside a bare process of node-pty terminals). Memory is the
// growth of the process's anonymous resident pages (RssAnon: heap, stacks, buffers), not of the file-backed pages
// of its program's code, which a process pages in once as code first runs (a fresh bare process running V8's
// optimizing compiler for the first time pages in ~4 MiB of node's binary) and shares with every other process.
// A busy room's V8 young generation grows from 1 to 16 MiB a semi-space with what it allocates, and its pages
// become resident as allocation walks through them: a cost of the process (bounded, paid by a busy room whatever
// its shells), which landed on whichever shells were measured (the early row read 0.10× to 3.2× tmux from run
// to run by it alone). So every room is read over its inspector (nothing else changed): at rest before its shells
// (after one full collection), and its memory per shell is its growth outside the young generation, the young
// generation said beside. Idle shells are read at rest on every side (the room and the bare node-pty process
// after a full collection, as a quiet room hands a burst's garbage back by itself), for the first `n` shells and
// for `n` more opened beside 2 × `n`: what one more shell adds, once what a process pays once (the code its first
// shell_open calls compile, a first terminal's buffers, the malloc arenas its threads grow) is paid. The early round of the room also runs with the
// young generation held at 1 MiB (--max-semi-space-size=1) and is read after a full collection (what the shells
// hold alive), and the floor (a bare process of node-pty terminals) is measured beside.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import * as pty from 'node-pty';
import WebSocket from 'ws';
import { callApi, cpuMsOf, makeHome, memoryOf, REPO, startRoom } from '../lib/room.js';
import { UiViewer } from '../lib/ui-viewer.js';
import { alternate, fmt, median, spreadPct } from '../lib/stats.js';

// bash's read with a timeout waits on the terminal without a process per line: 100 shells forking a sleep ten
// times a second each kept the 2-core machine at a load of 60, starving both multiplexers alike
const SHELL = '/bin/bash';
const FILL_LINES = 12_000;
/** Made once per run (makeFill): the lines that fill a shell's scrollback, and the file whose presence says to print them. */
let FILL_DIR = '';
let FILL = '';
let FLAG = '';
/** The fill's bytes as the terminal writes them (each newline a CR LF). */
let fillBytes = 0;
// the loop checks for the flag with a builtin test (no process per line); when it is there, it prints the fill
// once (one cat per shell) and says so in its title (what tmux lists); the room counts the bytes instead
const loop = () => `i=0; f=; while :; do echo "line $i of a shell that prints every 100 ms"; i=$((i+1)); if [[ -z $f && -e ${FLAG} ]]; then f=1; cat ${FILL}; printf '\\033]2;filled\\033\\\\'; fi; read -r -t 0.1 _; done`;
function makeFill() {
  FILL_DIR = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'commonroom-bench-fill-'));
  FILL = path.join(FILL_DIR, 'fill.txt');
  FLAG = path.join(FILL_DIR, 'now');
  const lines = Array.from({ length: FILL_LINES }, (_, j) => `fill ${j} of a shell that prints every 100 ms\n`).join('');
  fs.writeFileSync(FILL, lines);
  fillBytes = lines.length + FILL_LINES;
}
/** Waits (polling `done`) for every shell to have printed its fill; then a moment for the multiplexer to settle. */
async function filled(done) {
  const t0 = performance.now();
  while (!(await done())) {
    if (performance.now() - t0 > 180_000) throw new Error('the shells did not print their fill within 180 s');
    await sleep(500);
  }
  await sleep(2000);
}
const COLS = 120;
const ROWS = 32;
/**
 * Every room measured opens its inspector on loopback (nothing else changes: V8's heap is sized as shipped), so
 * that it can be read at rest before it is measured (one full collection asked for, `collectGarbage`) and its
 * young generation read at each measure (`youngKiB`).
 */
const INSPECT = '--inspect=127.0.0.1:0';
/** The profile's room: V8's young generation held at 1 MiB a semi-space (16 MiB by default). */
const PROFILED = ['--max-semi-space-size=1', INSPECT];

/** One call over the inspector of a room started with --inspect: its result. */
async function inspectorCall(room, method, params = {}) {
  const url = /ws:\/\/\S+/.exec(room.output())?.[0];
  if (!url) throw new Error('the room did not open its inspector');
  const ws = new WebSocket(url);
  try {
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return await new Promise((resolve, reject) => {
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString());
        if (m.id === 1) resolve(m.result);
      });
      ws.once('error', reject);
      ws.send(JSON.stringify({ id: 1, method, params }));
    });
  } finally {
    ws.close();
  }
}

/** Has a room collect all its garbage (HeapProfiler.collectGarbage: memory-reducing, it shrinks the young generation too). */
const collectGarbage = (room) => inspectorCall(room, 'HeapProfiler.collectGarbage');

/**
 * The pages V8's young generation has in use now (its semi-spaces and young large objects, as V8 counts them
 * resident), KiB. It grows from 1 to 16 MiB a semi-space as a busy room allocates, and shrinks at a
 * memory-reducing collection: a cost of the process (bounded, paid by a busy room whatever its shells), which
 * lands on whichever shells are measured when it grows or shrinks in between (the early row read 0.10× to 3.2×
 * tmux from run to run by it alone). Memory per shell is read without it, and it is said beside.
 */
async function youngKiB(room) {
  const expression = "process.getBuiltinModule('v8').getHeapSpaceStatistics().filter((s) => s.space_name.startsWith('new_')).reduce((a, s) => a + s.physical_space_size, 0)";
  const r = await inspectorCall(room, 'Runtime.evaluate', { expression, returnByValue: true });
  return r.result.value / 1024;
}

/** The room's anonymous resident memory and its young generation's, KiB. */
async function roomMemory(room) {
  const anonKiB = memoryOf(room.pid).anonKiB;
  return { anonKiB, youngKiB: await youngKiB(room) };
}

/** Growth per shell from `from` to `to` (roomMemory's), outside the young generation; and the young generation's. */
const perShell = (from, to, n) => ({ kib: (to.anonKiB - to.youngKiB - (from.anonKiB - from.youngKiB)) / n, youngKiB: to.youngKiB });

const api = (room, method, input) => callApi(room, room.token, method, input);

/**
 * A fresh room (run with `nodeArgs`) that has opened one shell (bash at its prompt), as the floor has spawned one
 * terminal and tmux has made one window before each is measured: the costs of a first shell (code paths run once,
 * a native module loaded) are the process's, not each shell's. Returns the room and its memory then.
 */
async function roomWithFirstShell(label, n, nodeArgs, restMs = 500) {
  const home = makeHome(label);
  home.env.COMMONROOM_LIMITS = JSON.stringify({ maxShells: Math.max(n + 1, 32) });
  home.nodeArgs = nodeArgs.includes(INSPECT) ? nodeArgs : [...nodeArgs, INSPECT];
  const room = await startRoom(home, ['--room', home.roomFile]);
  try {
    const first = (await api(room, 'shell_open', { name: 'first', shell: SHELL, args: ['--noprofile', '--norc'], cols: COLS, rows: ROWS })).shell.id;
    await api(room, 'shell_io', { shellId: first, wait: { until: 'idle', idleMs: 300, timeoutMs: 10_000 } });
    await sleep(restMs);
    // read at rest: what start-up left in the heap is collected now, not in the middle of the measure
    await collectGarbage(room);
    return { home, room, before: await roomMemory(room) };
  } catch (error) {
    await room.stop();
    home.cleanup();
    throw error;
  }
}

/** CPU ms per second and anonymous resident memory of `pids` (summed) over `ms`, after the shells have run `warmMs`. */
async function measure(pids, warmMs, ms) {
  await sleep(warmMs);
  const cpu0 = pids.reduce((a, p) => a + cpuMsOf(p), 0);
  const t0 = performance.now();
  await sleep(ms);
  const cpu = (pids.reduce((a, p) => a + cpuMsOf(p), 0) - cpu0) / ((performance.now() - t0) / 1000);
  const anonKiB = pids.reduce((a, p) => a + memoryOf(p).anonKiB, 0);
  return { cpu, anonKiB };
}

/**
 * One round of the room: a fresh room process (run with `nodeArgs`), `n` shells, `watched` of them attached live;
 * then, when `fill`, every shell prints its fill.
 */
async function roomRound(n, watched, warmMs, ms, { nodeArgs = [INSPECT], fill = true } = {}) {
  const { home, room, before } = await roomWithFirstShell('many-shells', n, nodeArgs);
  const viewers = [];
  try {
    const ids = [];
    for (let i = 0; i < n; i++) ids.push((await api(room, 'shell_open', { name: `loop-${i}`, shell: SHELL, args: ['--noprofile', '--norc', '-c', loop()], cols: COLS, rows: ROWS })).shell.id);
    for (const id of ids.slice(0, watched)) {
      const v = await UiViewer.open(room.url, room.token);
      v.attach(id);
      viewers.push(v);
    }
    const m = await measure([room.pid], warmMs, ms);
    const early = perShell(before, { anonKiB: m.anonKiB, youngKiB: await youngKiB(room) }, n);
    const { shells } = await api(room, 'shell_list', {});
    const tracked = shells.filter((s) => s.alive && s.status?.state === 'working').length;
    const perShellKiB = early.kib;
    const rawKiB = (m.anonKiB - before.anonKiB) / n;
    if (!fill) {
      // the profile: what the shells hold alive
      await collectGarbage(room);
      return { ...m, perShellKiB: perShell(before, await roomMemory(room), n).kib, tracked, shown: 0, lost: 0 };
    }
    // then every shell prints its fill: the same room with its scrollback full
    const at = new Map(shells.filter((s) => s.name.startsWith('loop-')).map((s) => [s.id, s.outputBytes]));
    fs.writeFileSync(FLAG, '');
    await filled(async () => (await api(room, 'shell_list', {})).shells.every((s) => !at.has(s.id) || s.outputBytes >= at.get(s.id) + fillBytes));
    const full = perShell(before, await roomMemory(room), n);
    fs.rmSync(FLAG, { force: true });
    const shown = viewers.reduce((a, v) => a + v.received, 0);
    const lost = viewers.reduce((a, v) => a + v.lost, 0);
    return { ...m, perShellKiB, rawKiB, earlyYoungKiB: early.youngKiB, fullKiB: full.kib, fullYoungKiB: full.youngKiB, tracked, shown, lost };
  } finally {
    for (const v of viewers) v.ws.close();
    await room.stop();
    home.cleanup();
  }
}

/**
 * The floor of any multiplexer in Node: a bare process holding `n` node-pty terminals (the room's PTY library)
 * running `args`, their output read and dropped, for `ms`: its anonymous resident memory per terminal, after a full
 * collection. Each costs a thread (node-pty waits for its child on one) and its stream besides its JavaScript objects.
 */
function ptyFloorKiB(n, args, ms) {
  const script = `(async () => {
    const pty = require('node-pty');
    const fs = require('node:fs');
    const rss = () => Number(/RssAnon:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
    // one terminal first, as the room has had its first shell's costs (code paths, buffers) before it is measured
    const terms = [pty.spawn(${JSON.stringify(SHELL)}, ['--noprofile', '--norc'], { cols: ${COLS}, rows: ${ROWS} })];
    terms[0].onData(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    gc();
    const before = rss();
    for (let i = 0; i < ${n}; i++) {
      const t = pty.spawn(${JSON.stringify(SHELL)}, ${JSON.stringify(args)}, { cols: ${COLS}, rows: ${ROWS}, env: process.env });
      t.onData(() => undefined);
      terms.push(t);
    }
    setTimeout(() => {
      gc();
      console.log((rss() - before) / ${n});
      for (const t of terms) t.kill();
      process.exit(0);
    }, ${ms});
  })();`;
  // measured as the profile's room is: after a full collection, the young generation held at 1 MiB
  const out = spawnSync(process.execPath, ['--expose-gc', PROFILED[0], '-e', script], { cwd: REPO, encoding: 'utf8', timeout: ms + 60_000 });
  return Number(out.stdout.trim());
}

/**
 * How long shells sit at their prompt before an idle round reads them, and how long each side rests before its
 * first reading: past the room's quiet period (30 s, after which it lets go of what a shell needs only while
 * something reads its screen) and the ~15 s after which a quiet `commonroom serve` hands back what a burst of
 * calls left in V8's heap (src-main/server/idle-collect.ts; the floor's process has only V8's own memory reducer,
 * which may or may not have run). An idle shell is one that has been idle: a few seconds after 100 shell_open
 * calls the figure is mostly those calls' garbage.
 */
const IDLE_QUIET_MS = 35_000;

/**
 * A fresh room (run with `nodeArgs`) with `n` interactive bash shells at their prompt, doing nothing: its memory
 * per shell `settleMs` after their prompts (`soon`) and once they have sat there `quietMs` (`idle`).
 */
async function roomIdleRound(n, settleMs, quietMs, nodeArgs = []) {
  // read at rest before as after: its start-up's garbage is not the shells' (it is handed back meanwhile)
  const { home, room, before } = await roomWithFirstShell('many-shells-idle', 3 * n, nodeArgs, quietMs);
  try {
    const open = async (from) => {
      for (let i = from; i < from + n; i++) await api(room, 'shell_open', { name: `idle-${i}`, shell: SHELL, args: ['--noprofile', '--norc'], cols: COLS, rows: ROWS });
      await filled(async () => (await api(room, 'shell_list', {})).shells.every((s) => s.outputBytes > 0));
    };
    await open(0);
    await sleep(settleMs);
    const soon = perShell(before, await roomMemory(room), n).kib;
    await sleep(quietMs - settleMs);
    // read at rest: a quiet room hands a burst's garbage back by itself (idle-collect.ts) once it has grown 2 MiB,
    // which a reading 35 s on may come before or after; asked for here, as the floor's is
    const atRest = async () => {
      await collectGarbage(room);
      await sleep(500);
      return roomMemory(room);
    };
    const at = await atRest();
    // then `n` more twice, each read as long after: what a shell adds to a room that already has 2 × `n` (`more`)
    await open(n);
    await sleep(quietMs);
    const at2 = await atRest();
    await open(2 * n);
    await sleep(quietMs);
    return { soon, idle: perShell(before, at, n).kib, more: perShell(at2, await atRest(), n).kib };
  } finally {
    await room.stop();
    home.cleanup();
  }
}

/**
 * The floor of an idle shell, measured as the room is (as shipped, read at rest before as after: after a collection): a
 * bare Node process that has spawned one node-pty terminal, then `n` interactive bash in node-pty terminals,
 * their output read and dropped; its memory per terminal `settleMs` after they printed their prompt (`soon`) and
 * `quietMs` after (`idle`).
 */
function ptyIdleRound(n, settleMs, quietMs) {
  const script = `(async () => {
    const pty = require('node-pty');
    const fs = require('node:fs');
    const rss = () => Number(/RssAnon:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
    const spawn = () => {
      const t = pty.spawn(${JSON.stringify(SHELL)}, ['--noprofile', '--norc'], { cols: ${COLS}, rows: ${ROWS}, env: process.env });
      t.printed = false;
      t.onData(() => (t.printed = true));
      return t;
    };
    // read at rest, as the room is (it hands back a burst's garbage once quiet: idle-collect.ts): after a collection
    const atRest = async () => {
      gc();
      await new Promise((r) => setTimeout(r, 500));
      return rss();
    };
    const terms = [spawn()];
    while (!terms[0].printed) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, ${quietMs}));
    const before = await atRest();
    for (let i = 0; i < ${n}; i++) terms.push(spawn());
    while (!terms.every((t) => t.printed)) await new Promise((r) => setTimeout(r, 500));
    await new Promise((r) => setTimeout(r, 2000 + ${settleMs}));
    const soon = (rss() - before) / ${n};
    await new Promise((r) => setTimeout(r, ${quietMs - settleMs}));
    const at = await atRest();
    const more = async () => {
      for (let i = 0; i < ${n}; i++) terms.push(spawn());
      while (!terms.every((t) => t.printed)) await new Promise((r) => setTimeout(r, 500));
      await new Promise((r) => setTimeout(r, 2000 + ${quietMs}));
      return atRest();
    };
    const at2 = await more();
    console.log(JSON.stringify({ soon, idle: (at - before) / ${n}, more: ((await more()) - at2) / ${n} }));
    for (const t of terms) t.kill();
    process.exit(0);
  })();`;
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', '-e', script], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 4 * quietMs + 240_000);
    proc.on('exit', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out));
      } catch {
        reject(new Error(`the node-pty floor printed no figures: ${out.slice(0, 200)}`));
      }
    });
  });
}

/**
 * What one more idle shell adds: `n` more opened beside 2 × `n` idle ones, read as long after, on each side. What
 * a process pays once is paid by then: the code a burst of shell_open calls compiles, a first terminal's buffers,
 * and the malloc arenas the room's threads grow (~1 MiB at a time, within its first 200 shells).
 */
function marginalRow(n, quietMs, idle) {
  const [o, b, f] = ['room', 'tmux', 'floor'].map((k) => median(idle[k].map((x) => x.more)));
  return {
    name: `many-shells memory per shell, idle, ${n} more beside ${2 * n} (what one more shell adds; ${fmt(quietMs / 1000, 0)} s)`,
    ours: `${fmt(o)} KiB ±${fmt(spreadPct(idle.room.map((x) => x.more)), 0)}%`,
    baseline: `tmux ${fmt(b)} KiB ±${fmt(spreadPct(idle.tmux.map((x) => x.more)), 0)}%; a bare Node process of node-pty terminals, side by side: ${fmt(f)} KiB ±${fmt(spreadPct(idle.floor.map((x) => x.more)), 0)}%`,
    ratio: `${fmt(o / b, 2)}× tmux, ${fmt(o / f, 2)}× the floor`,
    goal: '≤ 3× tmux, or ≤ 1.2× the floor',
    met: o / b <= 3 || o / f <= 1.2,
  };
}

const tmux = (socket, args) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', timeout: 30_000 });

/** A fresh tmux server on `socket` with one placeholder window: its pid and its resident memory before any shell. */
function tmuxServer(socket) {
  const started = tmux(socket, ['new-session', '-d', '-s', 'bench', '-x', String(COLS), '-y', String(ROWS), 'sleep', '3600']);
  if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  const server = Number(tmux(socket, ['display-message', '-p', '#{pid}']).stdout.trim());
  return { server, before: memoryOf(server).anonKiB };
}

/** One round of tmux: a fresh server, one session of `n` windows running the same loop, one client attached. */
async function tmuxRound(n, warmMs, ms, round) {
  const socket = `commonroom-bench-${process.pid}-${round}`;
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'commonroom-bench-tmux-'));
  let client;
  try {
    const { server, before } = tmuxServer(socket);
    for (let i = 0; i < n; i++) {
      const w = tmux(socket, ['new-window', '-t', 'bench', '-d', SHELL, '--noprofile', '--norc', '-c', loop()]);
      if (w.status !== 0) throw new Error(`tmux new-window failed: ${w.stderr}`);
    }
    tmux(socket, ['kill-window', '-t', 'bench:0']);
    tmux(socket, ['select-window', '-t', 'bench:1']);
    // one person's terminal attached, its output drained as a terminal would
    client = pty.spawn('tmux', ['-L', socket, '-f', '/dev/null', 'attach', '-t', 'bench'], { name: 'xterm-256color', cols: COLS, rows: ROWS, env: { ...process.env, TERM: 'xterm-256color' } });
    let shown = 0;
    client.onData((d) => (shown += d.length));
    await sleep(300);
    const m = await measure([server, client.pid], warmMs, ms);
    const perShellKiB = (memoryOf(server).anonKiB - before) / n;
    fs.writeFileSync(FLAG, '');
    await filled(() => tmux(socket, ['list-panes', '-s', '-t', 'bench', '-F', '#{pane_title}']).stdout.trim().split('\n').every((t) => t === 'filled'));
    const fullKiB = (memoryOf(server).anonKiB - before) / n;
    fs.rmSync(FLAG, { force: true });
    return { ...m, perShellKiB, fullKiB, shown };
  } finally {
    client?.kill();
    tmux(socket, ['kill-server']);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh tmux server with `n` windows of interactive bash at their prompt: its memory per window, as the room's is read. */
async function tmuxIdleRound(n, settleMs, quietMs, round) {
  const socket = `commonroom-bench-idle-${process.pid}-${round}`;
  try {
    const { server } = tmuxServer(socket);
    await sleep(quietMs);
    const before = memoryOf(server).anonKiB;
    for (let i = 0; i < n; i++) {
      const w = tmux(socket, ['new-window', '-t', 'bench', '-d', SHELL, '--noprofile', '--norc']);
      if (w.status !== 0) throw new Error(`tmux new-window failed: ${w.stderr}`);
    }
    await sleep(1000 + settleMs);
    const soon = (memoryOf(server).anonKiB - before) / n;
    await sleep(quietMs - settleMs);
    const at = memoryOf(server).anonKiB;
    const more = async () => {
      for (let i = 0; i < n; i++) {
        const w = tmux(socket, ['new-window', '-t', 'bench', '-d', SHELL, '--noprofile', '--norc']);
        if (w.status !== 0) throw new Error(`tmux new-window failed: ${w.stderr}`);
      }
      await sleep(1000 + quietMs);
      return memoryOf(server).anonKiB;
    };
    const at2 = await more();
    return { soon, idle: (at - before) / n, more: ((await more()) - at2) / n };
  } finally {
    tmux(socket, ['kill-server']);
  }
}

export default {
  name: 'many-shells',
  async run({ smoke, log }) {
    if (spawnSync('tmux', ['-V']).status !== 0) throw new Error('tmux is not installed (Debian: apt-get install -y tmux): it is the baseline');
    const n = smoke ? 10 : 100;
    const watched = smoke ? 2 : 10;
    const warmMs = smoke ? 500 : 3000;
    const ms = smoke ? 1000 : 10_000;
    const rounds = smoke ? 1 : 3;
    makeFill();
    let round = 0;
    const extra = { tracked: [], lost: 0 };
    const r = await alternate(
      rounds,
      async () => {
        const x = await roomRound(n, watched, warmMs, ms);
        extra.tracked.push(x.tracked);
        extra.lost += x.lost;
        log(`room: ${fmt(x.cpu)} ms CPU/s, ${fmt(x.perShellKiB)} KiB/shell outside the young generation (${fmt(x.rawKiB)} with it, ${fmt(x.earlyYoungKiB / 1024)} MiB), ${fmt(x.fullKiB)} with its scrollback full (young ${fmt(x.fullYoungKiB / 1024)} MiB), ${x.tracked}/${n} shells read working, ${x.shown} bytes shown live, ${x.lost} lost`);
        return x;
      },
      async () => {
        const x = await tmuxRound(n, warmMs, ms, round++);
        log(`tmux: ${fmt(x.cpu)} ms CPU/s, ${fmt(x.perShellKiB)} KiB/shell (${fmt(x.fullKiB)} with its history full)`);
        return x;
      },
    );
    const cpuOurs = median(r.ours.map((x) => x.cpu));
    const cpuBase = median(r.baseline.map((x) => x.cpu));
    const tracked = Math.min(...extra.tracked);
    // idle: the room, tmux and the node-pty floor side by side, at the same time (memory, not CPU, is read; the
    // three wait out the same quiet period together)
    const quietMs = smoke ? 5000 : IDLE_QUIET_MS;
    const idle = { room: [], tmux: [], floor: [] };
    for (let i = 0; i < rounds; i++) {
      const [room, tmuxIdle, floor] = await Promise.all([roomIdleRound(n, warmMs, quietMs), tmuxIdleRound(n, warmMs, quietMs, i), ptyIdleRound(n, warmMs, quietMs)]);
      idle.room.push(room);
      idle.tmux.push(tmuxIdle);
      idle.floor.push(floor);
      log(`idle shells, ${fmt(quietMs / 1000, 0)} s at their prompt (${fmt(warmMs / 1000, 0)} s; ${n} more beside ${2 * n}): room ${fmt(room.idle)} KiB (${fmt(room.soon)}; ${fmt(room.more)}), tmux ${fmt(tmuxIdle.idle)} (${fmt(tmuxIdle.soon)}; ${fmt(tmuxIdle.more)}), node-pty ${fmt(floor.idle)} (${fmt(floor.soon)}; ${fmt(floor.more)})`);
    }
    // the profile: the same room with V8's young generation held at 1 MiB a semi-space, measured after a full
    // collection (before and after the shells): what the shells hold alive
    const held = { early: [] };
    for (let i = 0; i < rounds; i++) {
      held.early.push((await roomRound(n, watched, warmMs, ms, { nodeArgs: PROFILED, fill: false })).perShellKiB);
      log(`room, alive after a full collection, young generation held at 1 MiB: ${fmt(held.early.at(-1))} KiB/shell early`);
    }
    const earlyFloorKiB = ptyFloorKiB(n, ['--noprofile', '--norc', '-c', loop()], warmMs + ms);
    log(`floor: ${fmt(earlyFloorKiB)} KiB per node-pty terminal running the loop (${n} in a bare process)`);
    fs.rmSync(FILL_DIR, { recursive: true, force: true });
    const memory = (label, ours, base, goal, notes, against, floorKiB) => {
      const [o, b] = [median(ours), median(base)];
      const h = against && median(against.held);
      return {
        name: `many-shells memory per shell, ${label}`,
        ours: `${fmt(o)} KiB ±${fmt(spreadPct(ours), 0)}%${notes.young ?? ''}${against ? ` (alive after a full collection, V8's young generation held at 1 MiB: ${fmt(h)} KiB; a bare node-pty terminal alone: ${fmt(against.floor)} KiB)` : notes.ours}`,
        baseline: `tmux ${fmt(b)} KiB${notes.baseline}`,
        ratio: `${fmt(o / b, 2)}×${against ? ` (alive: ${fmt(h / b, 2)}×, ${fmt(h / against.floor, 2)}× the floor)` : ''}${floorKiB ? ` (${fmt(o / floorKiB, 2)}× node-pty's ${fmt(floorKiB)} KiB)` : ''}`,
        goal: `≤ ${goal}× tmux`,
        met: o / b <= goal,
        ...(against ? { floor: against.floor / b } : floorKiB ? { floor: floorKiB / b } : {}),
      };
    };
    return [
      {
        name: `many-shells CPU (${n} shells, ${watched} live)`,
        ours: `${fmt(cpuOurs)} ms/s ±${fmt(spreadPct(r.ours.map((x) => x.cpu)), 0)}% (${tracked}/${n} read working; ${extra.lost} bytes lost live)`,
        baseline: `tmux ${fmt(cpuBase)} ms/s (server + 1 client)`,
        ratio: `${fmt(cpuOurs / cpuBase, 2)}×`,
        goal: '≤ 1.1× tmux',
        met: cpuOurs / cpuBase <= 1.1 && tracked === n && extra.lost === 0,
      },
      memory(`early (${n} shells, ${fmt((warmMs + ms) / 1000, 0)} s in)`, r.ours.map((x) => x.perShellKiB), r.baseline.map((x) => x.perShellKiB), 2, {
        baseline: '',
        young: ` outside V8's young generation (with it, as read: ${fmt(median(r.ours.map((x) => x.rawKiB)))} KiB ±${fmt(spreadPct(r.ours.map((x) => x.rawKiB)), 0)}%, the young generation ${fmt(median(r.ours.map((x) => x.earlyYoungKiB)) / 1024)} MiB)`,
      }, { held: held.early, floor: earlyFloorKiB }),
      memory(`scrollback full (${n} shells, ${FILL_LINES.toLocaleString('en')} lines each)`, r.ours.map((x) => x.fullKiB), r.baseline.map((x) => x.fullKiB), 2, {
        ours: ` (keeps 10,000 lines; outside V8's young generation, ${fmt(median(r.ours.map((x) => x.fullYoungKiB)) / 1024)} MiB then)`,
        baseline: ' (history-limit 2,000 lines)',
      }),
      memory(`idle at a prompt (${n} interactive bash, ${fmt(quietMs / 1000, 0)} s)`, idle.room.map((x) => x.idle), idle.tmux.map((x) => x.idle), 3, {
        ours: ` (${fmt(warmMs / 1000, 0)} s after their prompts: ${fmt(median(idle.room.map((x) => x.soon)))} KiB)`,
        baseline: ` (${fmt(warmMs / 1000, 0)} s after: ${fmt(median(idle.tmux.map((x) => x.soon)))} KiB)`,
      }, null, median(idle.floor.map((x) => x.idle))),
      {
        name: `many-shells memory per shell, idle at a prompt, against its floor (node-pty)`,
        ours: `${fmt(median(idle.room.map((x) => x.idle)))} KiB ±${fmt(spreadPct(idle.room.map((x) => x.idle)), 0)}%`,
        baseline: `a bare Node process of node-pty terminals, side by side: ${fmt(median(idle.floor.map((x) => x.idle)))} KiB ±${fmt(spreadPct(idle.floor.map((x) => x.idle)), 0)}% (${fmt(warmMs / 1000, 0)} s after their prompts: room ${fmt(median(idle.room.map((x) => x.soon)))}, node-pty ${fmt(median(idle.floor.map((x) => x.soon)))} KiB)`,
        ratio: `${fmt(median(idle.room.map((x) => x.idle)) / median(idle.floor.map((x) => x.idle)), 2)}×`,
        goal: '≤ 1.2× the floor',
        met: median(idle.room.map((x) => x.idle)) / median(idle.floor.map((x) => x.idle)) <= 1.2,
      },
      marginalRow(n, quietMs, idle),
    ];
  },
};
