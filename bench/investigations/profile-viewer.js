#!/usr/bin/env node
// The shell-stream viewer row under a profiler: a viewer on the UI socket (bench/lib/ui-viewer.js) watches
// `head -c N | tr '\0' y` in a shell of a room started with --cpu-prof. Per round: wall time, the room's CPU
// time by process kind (from /proc: the node room, sh, head, tr) and this process's own CPU (the viewer's
// decoding and acks); then the room's CPU profile (self time).
// usage: node bench/investigations/profile-viewer.js [ROUNDS] [TOP] (BENCH_STREAM_MIB, default 64; PROFILE=0 skips --cpu-prof;
// PROFILE=perf (see below); BENCH_BIN=path/to/bin/commonroom.js profiles another build)
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { produce, SHELL_ENV } from '../lib/flood.js';
import { cpuOfTree, cpuSince, summarize } from '../lib/profiles.js';
import { makeHome, startRoom } from '../lib/room.js';
import { UiViewer } from '../lib/ui-viewer.js';

/** --trace-gc lines (`[pid:addr] N ms: Scavenge 10.1 (12.0) -> 9.8 (12.0) MB, 0.5 / 0.0 ms ...`) by kind: count, pause ms, last heap. */
function gcSummary(text) {
  const kinds = {};
  for (const m of text.matchAll(/ms: (Scavenge|Mark-Compact|Mark-Compact \(reduce\)|Minor Mark-Sweep)[^,]*?(\d+\.\d+) \(\S+\) -> (\d+\.\d+) \(\S+\) MB, (?:pooled: \S+ MB, )?(\d+\.\d+) \/ \d+\.\d+ ms(?: \(average mu = [^)]*\))? *(?:allocation failure|[^\n]*)/g)) {
    const k = (kinds[m[1]] ??= { n: 0, pauseMs: 0, heapMB: 0 });
    k.n++;
    k.pauseMs = Math.round((k.pauseMs + Number(m[4])) * 10) / 10;
    k.heapMB = Number(m[3]);
  }
  const reasons = {};
  for (const m of text.matchAll(/Mark-Compact[^\n]*?ms: +(?:\(average mu[^)]*\) )?([a-z][a-z ]+)$/gm)) reasons[m[1].trim()] = (reasons[m[1].trim()] ?? 0) + 1;
  return `  gc: ${JSON.stringify(kinds)} mark-compact reasons ${JSON.stringify(reasons)}`;
}

const [rounds = '3', top = '30'] = process.argv.slice(2);
const bytes = Number(process.env.BENCH_STREAM_MIB ?? 64) * 2 ** 20;
// PROFILE=perf: no V8 profile; the room writes /tmp/perf-PID.map for `perf record -p PID` (kernel time too)
const profiling = !['0', 'perf', 'gc'].includes(process.env.PROFILE ?? '');
const home = makeHome('profile-viewer');
const dir = path.join(home.root, 'prof');
if (profiling) home.nodeArgs = ['--cpu-prof', '--cpu-prof-dir', dir];
if (process.env.PROFILE === 'perf') home.nodeArgs = ['--perf-basic-prof'];
// PROFILE=gc: the room under --trace-gc; its collections during the rounds are counted by kind and printed
if (process.env.PROFILE === 'gc') home.nodeArgs = ['--trace-gc', ...(process.env.GC_FLAGS ?? '').split(' ').filter(Boolean)];
if (process.env.BENCH_BIN) home.bin = path.resolve(process.env.BENCH_BIN);
const room = await startRoom(home);
const client = await connect('2026', room.url, room.token);
console.log(`room pid ${room.pid}`);
try {
  const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV, name: 'viewer' });
  const viewer = await UiViewer.open(room.url, room.token);
  viewer.attach(shell.id);
  const type = (n) => () => callTool(client, 'shell_io', { shellId: shell.id, text: `${produce(n)}\n`, maxBytes: 1 });
  await viewer.watch(64 * 1024, type(64 * 1024));
  for (let round = 1; round <= Number(rounds); round++) {
    const cpu = cpuOfTree(room.pid);
    const own = process.cpuUsage();
    const frames = viewer.frames;
    const gcFrom = room.output().length;
    const t = performance.now();
    const r = await viewer.watch(bytes, type(bytes));
    const ms = performance.now() - t;
    const used = cpuSince(cpu, cpuOfTree(room.pid));
    const mine = process.cpuUsage(own);
    const intact = r.lost === 0 && r.missing === 0 && r.other === 0 && r.truncatedFrames === 0;
    console.log(
      `round ${round}: ${(bytes / 2 ** 20).toFixed(0)} MiB in ${ms.toFixed(0)} ms (${(bytes / 2 ** 20 / (ms / 1000)).toFixed(1)} MiB/s), ` +
        `${viewer.frames - frames} frames, ${intact ? 'intact' : `LOST ${JSON.stringify(r)}`}; room CPU ms ${JSON.stringify(used)}; viewer CPU ${((mine.user + mine.system) / 1000).toFixed(0)} ms`,
    );
    if (process.env.PROFILE === 'gc') console.log(gcSummary(room.output().slice(gcFrom)));
    if (process.env.PROFILE === 'gc') {
      for (const line of room.output().slice(gcFrom).split('\n')) if (/Mark-Compact|IncrementalMarking\] Start \(/.test(line)) console.log(`  ${line.slice(0, 330)}`);
    }
  }
  viewer.close();
  if (process.env.GC_DUMP) fs.writeFileSync(process.env.GC_DUMP, room.output());
} finally {
  await closeAll([client]);
  await room.stop();
}
if (profiling) {
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  summarize('room process (whole run, including start)', JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), Number(top));
}
home.cleanup();
