// many-shells: a room with 100 shells at once, each printing a line every 100 ms, 10 of them watched live
// through the UI door (the socket the app's Terminals screen and `ce shell attach` use, acknowledging each
// frame), every shell's status tracked: the room process's CPU per second and its resident memory per shell,
// against tmux (the multiplexer people use for this) running the same 100 commands in 100 windows of one
// session with one client attached (in a PTY of this process, drained), in the same run, alternating rounds.
// Only the multiplexer is measured on each side (the room process; the tmux server and its client): the 100
// shells and their sleeps are the same processes on both.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as pty from 'node-pty';
import { callApi, cpuMsOf, makeHome, memoryOf, REPO, startRoom } from '../lib/room.js';
import { UiViewer } from '../lib/ui-viewer.js';
import { alternate, fmt, median, spreadPct } from '../lib/stats.js';

// bash's read with a timeout waits on the terminal without a process per line: 100 shells forking a sleep ten
// times a second each kept the 2-core machine at a load of 60, starving both multiplexers alike
const SHELL = '/bin/bash';
const LOOP = 'i=0; while :; do echo "line $i of a shell that prints every 100 ms"; i=$((i+1)); read -r -t 0.1 _; done';
const COLS = 120;
const ROWS = 32;

const api = (room, method, input) => callApi(room, room.token, method, input);

/** CPU ms per second and RSS of `pids` (summed) over `ms`, after the shells have run `warmMs`. */
async function measure(pids, warmMs, ms) {
  await sleep(warmMs);
  const cpu0 = pids.reduce((a, p) => a + cpuMsOf(p), 0);
  const t0 = performance.now();
  await sleep(ms);
  const cpu = (pids.reduce((a, p) => a + cpuMsOf(p), 0) - cpu0) / ((performance.now() - t0) / 1000);
  const rssKiB = pids.reduce((a, p) => a + memoryOf(p).rssKiB, 0);
  return { cpu, rssKiB };
}

/** One round of the room: a fresh room process, `n` shells, `watched` of them attached live. */
async function roomRound(n, watched, warmMs, ms) {
  const home = makeHome('many-shells');
  home.env.COMMONROOM_LIMITS = JSON.stringify({ maxShells: Math.max(n, 32) });
  const room = await startRoom(home, ['--room', home.roomFile]);
  const viewers = [];
  try {
    await api(room, 'room_info', {});
    const before = memoryOf(room.pid).rssKiB;
    const ids = [];
    for (let i = 0; i < n; i++) ids.push((await api(room, 'shell_open', { name: `loop-${i}`, shell: SHELL, args: ['--noprofile', '--norc', '-c', LOOP], cols: COLS, rows: ROWS })).shell.id);
    for (const id of ids.slice(0, watched)) {
      const v = await UiViewer.open(room.url, room.token);
      v.attach(id);
      viewers.push(v);
    }
    const m = await measure([room.pid], warmMs, ms);
    const { shells } = await api(room, 'shell_list', {});
    const tracked = shells.filter((s) => s.alive && s.status?.state === 'working').length;
    const shown = viewers.reduce((a, v) => a + v.received, 0);
    const lost = viewers.reduce((a, v) => a + v.lost, 0);
    return { ...m, perShellKiB: (m.rssKiB - before) / n, tracked, shown, lost };
  } finally {
    for (const v of viewers) v.ws.close();
    await room.stop();
    home.cleanup();
  }
}

/**
 * The floor of a room that keeps a terminal model per shell (the room's screen reads, status rules and query
 * answers need one): a bare Node process holding `n` @xterm/headless terminals as the room makes them, fed
 * the same lines: its resident memory per terminal.
 */
function xtermFloorKiB(n) {
  const script = `
    const { Terminal } = require('@xterm/headless');
    const terms = [];
    const before = process.memoryUsage().rss;
    for (let i = 0; i < ${n}; i++) terms.push(new Terminal({ cols: ${COLS}, rows: ${ROWS}, scrollback: 0, allowProposedApi: true, logLevel: 'off' }));
    for (let l = 0; l < 130; l++) for (const t of terms) t.write('line ' + l + ' of a shell that prints every 100 ms\\r\\n');
    terms[terms.length - 1].write('', () => console.log((process.memoryUsage().rss - before) / 1024 / ${n}));`;
  const out = spawnSync(process.execPath, ['-e', script], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  return Number(out.stdout.trim());
}

const tmux = (socket, args) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', timeout: 30_000 });

/** One round of tmux: a fresh server, one session of `n` windows running the same loop, one client attached. */
async function tmuxRound(n, warmMs, ms, round) {
  const socket = `commonroom-bench-${process.pid}-${round}`;
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'commonroom-bench-tmux-'));
  let client;
  try {
    const started = tmux(socket, ['new-session', '-d', '-s', 'bench', '-x', String(COLS), '-y', String(ROWS), 'sleep', '3600']);
    if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
    const server = Number(tmux(socket, ['display-message', '-p', '#{pid}']).stdout.trim());
    const before = memoryOf(server).rssKiB;
    for (let i = 0; i < n; i++) {
      const w = tmux(socket, ['new-window', '-t', 'bench', '-d', SHELL, '--noprofile', '--norc', '-c', LOOP]);
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
    return { ...m, perShellKiB: (memoryOf(server).rssKiB - before) / n, shown };
  } finally {
    client?.kill();
    tmux(socket, ['kill-server']);
    fs.rmSync(dir, { recursive: true, force: true });
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
    let round = 0;
    const extra = { tracked: [], lost: 0 };
    const r = await alternate(
      rounds,
      async () => {
        const x = await roomRound(n, watched, warmMs, ms);
        extra.tracked.push(x.tracked);
        extra.lost += x.lost;
        log(`room: ${fmt(x.cpu)} ms CPU/s, ${fmt(x.perShellKiB)} KiB/shell, ${x.tracked}/${n} shells read working, ${x.shown} bytes shown live, ${x.lost} lost`);
        return x;
      },
      async () => {
        const x = await tmuxRound(n, warmMs, ms, round++);
        log(`tmux: ${fmt(x.cpu)} ms CPU/s, ${fmt(x.perShellKiB)} KiB/shell`);
        return x;
      },
    );
    const cpuOurs = median(r.ours.map((x) => x.cpu));
    const cpuBase = median(r.baseline.map((x) => x.cpu));
    const memOurs = median(r.ours.map((x) => x.perShellKiB));
    const memBase = median(r.baseline.map((x) => x.perShellKiB));
    const tracked = Math.min(...extra.tracked);
    const floorKiB = xtermFloorKiB(n);
    log(`floor: ${fmt(floorKiB)} KiB per headless terminal (${n} in a bare process)`);
    return [
      {
        name: `many-shells CPU (${n} shells, ${watched} live)`,
        ours: `${fmt(cpuOurs)} ms/s ±${fmt(spreadPct(r.ours.map((x) => x.cpu)), 0)}% (${tracked}/${n} read working; ${extra.lost} bytes lost live)`,
        baseline: `tmux ${fmt(cpuBase)} ms/s (server + 1 client)`,
        ratio: `${fmt(cpuOurs / cpuBase, 2)}×`,
        goal: '≤ 1.1× tmux',
        met: cpuOurs / cpuBase <= 1.1 && tracked === n && extra.lost === 0,
      },
      {
        name: `many-shells memory per shell (${n} shells)`,
        ours: `${fmt(memOurs)} KiB (of which a headless terminal model alone: ${fmt(floorKiB)} KiB)`,
        baseline: `tmux ${fmt(memBase)} KiB`,
        ratio: `${fmt(memOurs / memBase, 2)}×`,
        goal: '≤ 2× tmux',
        met: memOurs / memBase <= 2,
        floor: floorKiB / memBase,
      },
    ];
  },
};
