#!/usr/bin/env node
// A/B of two builds on the graph benchmark, in one run: two rooms (OUT_BEFORE's CLI and the current out/),
// the same 256-stage graph submitted to each in turn, and the bare loop (in a fresh process) in between, several rounds.
// usage: node bench/investigations/ab-graph.js BIN_BEFORE [ROUNDS]   (BIN_BEFORE: a commonroom.js importing the before build)
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { makeHome, startRoom } from '../lib/room.js';
import { median } from '../lib/stats.js';
import { bareLoopProcess, shape } from '../benchmarks/graph.js';

const [binBefore, roundsArg = '3'] = process.argv.slice(2);
if (!binBefore) {
  console.error('usage: node bench/investigations/ab-graph.js BIN_BEFORE [ROUNDS]');
  process.exit(2);
}
async function open(label, bin) {
  const home = makeHome(`ab-${label}`);
  if (bin) home.bin = path.resolve(bin);
  const room = await startRoom(home);
  return { home, room, client: await connect('2026', room.url, room.token) };
}
async function runGraph(client, stages) {
  const t = performance.now();
  const { graphId } = await callTool(client, 'tasks_run', { maxParallel: 2, stages: stages.map((s) => ({ id: s.id, command: ['true'], dependsOn: s.dependsOn })) });
  for (;;) {
    // a before-build without `until` would refuse it: POLL=1 follows by polling every 25 ms instead
    const status = await callTool(client, 'tasks_status', process.env.POLL ? { graphId } : { graphId, stages: false, waitMs: 20_000, until: 'ended' });
    if (status.graph.endedAt) return performance.now() - t;
    if (process.env.POLL) await sleep(25);
  }
}
const before = await open('before', binBefore);
const after = await open('after');
try {
  for (const kind of ['wide', 'chain', 'lattice']) {
    const stages = shape(kind, 256);
    const t = { before: [], after: [], loop: [] };
    for (let r = 0; r < Number(roundsArg); r++) {
      const order = r % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const who of order) t[who].push(await runGraph((who === 'before' ? before : after).client, stages));
      t.loop.push(bareLoopProcess(os.tmpdir(), stages)); // in a fresh process: a fork costs the parent in proportion to its memory
    }
    const [b, a, l] = [median(t.before), median(t.after), median(t.loop)];
    console.log(`${kind} 256: before ${b.toFixed(0)} ms (${(b / l).toFixed(2)}× loop), after ${a.toFixed(0)} ms (${(a / l).toFixed(2)}× loop), loop ${l.toFixed(0)} ms; after/before ${(a / b).toFixed(2)}`);
  }
} finally {
  for (const x of [before, after]) {
    await closeAll([x.client]);
    await x.room.stop();
    x.home.cleanup();
  }
}
