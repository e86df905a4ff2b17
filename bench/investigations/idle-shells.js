// What an idle shell costs the room, beside what it costs a bare process of node-pty terminals (the floor):
// a fresh room (its inspector open on loopback) that has opened one shell, then N interactive bash at their
// prompt; its anonymous resident memory (RssAnon) and V8's heap spaces read at once, again after the terminal
// models' quiet period, and again after a full collection. The floor is the same N node-pty terminals in a bare
// Node process, read the same three ways.
//
//   npm run build && node bench/investigations/idle-shells.js [N=100] [later-s=35] [room node flags...]
// SNAPSHOT=30: instead of the floor, the room's heap snapshots before and after, the 30 largest growths per shell
// (SNAPSHOT_DIR=DIR: both kept there as files, for heap-diff.js). WARM=100: 100 idle shells opened first and
// left open (what N more add to a room that has them).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { callApi, makeHome, memoryOf, REPO, startRoom } from '../lib/room.js';

const N = Number(process.argv[2] ?? 100);
const LATER_S = Number(process.argv[3] ?? 35);
const FLAGS = process.argv.slice(4);
const SHELL = '/bin/bash';
// COMMAND='…': each shell runs `bash -c COMMAND` instead of sitting at its prompt (the early round of many-shells)
const ARGS = process.env.COMMAND ? ['--noprofile', '--norc', '-c', process.env.COMMAND] : ['--noprofile', '--norc'];

let snapshots = 0;

/** One inspector session on a process started with --inspect (its ws:// address in `output()`). */
async function inspector(output) {
  const url = /ws:\/\/\S+/.exec(output())?.[0];
  if (!url) throw new Error('no inspector address');
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let id = 0;
  const pending = new Map();
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      pending.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    gc: () => send('HeapProfiler.collectGarbage'),
    /** A heap snapshot, summed by (type, constructor or name): count and self size. */
    async snapshot() {
      let json = '';
      const onChunk = (data) => {
        const m = JSON.parse(data.toString());
        if (m.method === 'HeapProfiler.addHeapSnapshotChunk') json += m.params.chunk;
      };
      ws.on('message', onChunk);
      await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      ws.off('message', onChunk);
      // SNAPSHOT_DIR: the raw snapshots kept there too (before.heapsnapshot, after.heapsnapshot), for
      // heap-diff.js to say what holds each new object
      if (process.env.SNAPSHOT_DIR) fs.writeFileSync(path.join(process.env.SNAPSHOT_DIR, `${++snapshots === 1 ? 'before' : 'after'}.heapsnapshot`), json);
      const snap = JSON.parse(json);
      const fields = snap.snapshot.meta.node_fields;
      const types = snap.snapshot.meta.node_types[0];
      const [ti, ni, si] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
      const sums = new Map();
      for (let i = 0; i < snap.nodes.length; i += fields.length) {
        const type = types[snap.nodes[i + ti]];
        const name = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '(string)' : type === 'code' && !process.env.CODE_NAMES ? '(code)' : snap.strings[snap.nodes[i + ni]].slice(0, 60);
        const key = `${type} ${name}`;
        const s = sums.get(key) ?? { count: 0, size: 0 };
        s.count++;
        s.size += snap.nodes[i + si];
        sums.set(key, s);
      }
      return sums;
    },
    async heap() {
      const expr = `JSON.stringify({ mu: process.memoryUsage(), spaces: process.getBuiltinModule('v8').getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size, s.space_used_size, s.physical_space_size]) })`;
      const r = await send('Runtime.evaluate', { expression: expr, returnByValue: true });
      return JSON.parse(r.result.result.value);
    },
    close: () => ws.close(),
  };
}

const kib = (b) => Math.round(b / 1024);
function show(label, before, anon, heap) {
  const per = ((anon - before.anon) / N).toFixed(1);
  const spaces = heap.spaces.map(([name, , used, phys], i) => `${name.replace('_space', '')} ${kib(used)}/${kib(phys)}${before.heap ? ` (Δphys ${kib(phys - before.heap.spaces[i][3])})` : ''}`).join(', ');
  console.log(`${label}: ${per} KiB/shell (RssAnon +${anon - before.anon} KiB); external ${kib(heap.mu.external)} KiB (Δ ${kib(heap.mu.external - before.heap.mu.external)}), arrayBuffers ${kib(heap.mu.arrayBuffers)} KiB; heap used/physical KiB: ${spaces}`);
}

async function room() {
  const home = makeHome('idle-shells');
  home.env.COMMONROOM_LIMITS = JSON.stringify({ maxShells: N + Number(process.env.WARM ?? 0) + 32 });
  home.nodeArgs = [...FLAGS, '--inspect=127.0.0.1:0'];
  const r = await startRoom(home, ['--room', home.roomFile]);
  const api = (m, i) => callApi(r, r.token, m, i);
  const insp = await inspector(r.output);
  try {
    const first = (await api('shell_open', { name: 'first', shell: SHELL, args: ARGS, cols: 120, rows: 32 })).shell.id;
    await api('shell_io', { shellId: first, wait: { until: 'idle', idleMs: 300, timeoutMs: 10_000 } });
    // WARM=n: n shells opened first and left open, so that what is read is what N more add to a room that has them
    for (let i = 0; i < Number(process.env.WARM ?? 0); i++) await api('shell_open', { name: `warm-${i}`, shell: SHELL, args: ARGS, cols: 120, rows: 32 });
    await sleep(process.env.WARM ? LATER_S * 1000 : 500);
    await insp.gc();
    const snapBefore = process.env.SNAPSHOT ? await insp.snapshot() : null;
    await insp.gc();
    const before = { anon: memoryOf(r.pid).anonKiB, heap: await insp.heap() };
    for (let i = 0; i < N; i++) await api('shell_open', { name: `idle-${i}`, shell: SHELL, args: ARGS, cols: 120, rows: 32 });
    while (!(await api('shell_list', {})).shells.every((s) => s.outputBytes > 0)) await sleep(500);
    await sleep(5000);
    show('room, 5 s after the prompts', before, memoryOf(r.pid).anonKiB, await insp.heap());
    await sleep(LATER_S * 1000);
    show(`room, ${LATER_S} s later`, before, memoryOf(r.pid).anonKiB, await insp.heap());
    await insp.gc();
    await sleep(500);
    show('room, after a full collection', before, memoryOf(r.pid).anonKiB, await insp.heap());
    if (snapBefore) {
      const after = await insp.snapshot();
      const rows = [...after].map(([k, v]) => [k, v.count - (snapBefore.get(k)?.count ?? 0), v.size - (snapBefore.get(k)?.size ?? 0)]).sort((a, b) => b[2] - a[2]);
      console.log(`heap snapshot, after minus before, per shell (total ${(rows.reduce((a, r) => a + r[2], 0) / N / 1024).toFixed(1)} KiB):`);
      for (const [k, count, size] of rows.slice(0, Number(process.env.SNAPSHOT))) console.log(`${(size / N).toFixed(0).padStart(7)} B  ${(count / N).toFixed(2).padStart(6)}×  ${k}`);
    }
  } finally {
    insp.close();
    await r.stop();
    home.cleanup();
  }
}

async function floor() {
  const script = `(async () => {
    const pty = require('node-pty');
    const fs = require('node:fs');
    const rss = () => Number(/RssAnon:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
    const heap = () => ({ mu: process.memoryUsage(), spaces: require('v8').getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size, s.space_used_size, s.physical_space_size]) });
    const terms = [pty.spawn(${JSON.stringify(SHELL)}, ${JSON.stringify(ARGS)}, { cols: 120, rows: 32 })];
    terms[0].onData(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    gc();
    const out = [{ anon: rss(), heap: heap() }];
    for (let i = 0; i < ${N}; i++) {
      const t = pty.spawn(${JSON.stringify(SHELL)}, ${JSON.stringify(ARGS)}, { cols: 120, rows: 32, env: process.env });
      t.onData(() => undefined);
      terms.push(t);
    }
    await new Promise((r) => setTimeout(r, 6000));
    out.push({ anon: rss(), heap: heap() });
    gc();
    await new Promise((r) => setTimeout(r, 500));
    out.push({ anon: rss(), heap: heap() });
    console.log(JSON.stringify(out));
    for (const t of terms) t.kill();
    process.exit(0);
  })();`;
  const proc = spawn(process.execPath, [...FLAGS, '--expose-gc', '-e', script], { cwd: REPO });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  await new Promise((r) => proc.on('exit', r));
  const [before, at, gced] = JSON.parse(out);
  show('floor, 6 s after spawning', before, at.anon, at.heap);
  show('floor, after a full collection', before, gced.anon, gced.heap);
}

console.log(`${N} idle shells; room flags: ${FLAGS.join(' ') || 'none'}`);
if (!process.env.SNAPSHOT) await floor();
await room();
