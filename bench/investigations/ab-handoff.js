#!/usr/bin/env node
// A/B of builds on the handoff-cycle benchmark, in one run: one room per build (the current out/ and each
// BIN given), the same cycle (create → accept → complete → approve) on each in turn with four bare no-op
// calls in between (and four of its durable_noop: one fsync'd commit each), several rounds, who goes first
// rotating. Per side: cycles/s (median of rounds), its ratio to the bare no-op calls (the median of each
// round's ratio to the bare round of the same rotation), and the server process's CPU per cycle (its
// threads' run time from /proc, which a loaded machine disturbs far less than wall time).
// usage: node bench/investigations/ab-handoff.js [2025|2026] [ROUNDS] [BIN…]   (BIN: a commonroom.js of another build,
// inside this checkout so that node_modules resolve, e.g. .tmp/out-before/main/commonroom.js; or Node flags starting with -- for
// the current build run with them, e.g. --max-semi-space-size=1)
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startBare } from '../lib/bare.js';
import { closeAll, connect, handoffCycle, noops } from '../lib/clients.js';
import { addParticipant, cpuMsOf, makeHome, startRoom } from '../lib/room.js';
import { median } from '../lib/stats.js';

const [era = '2026', roundsArg = '5', ...bins] = process.argv.slice(2);
const MS = Number(process.env.BENCH_AB_MS ?? 2000);
async function rate(pid, once) {
  const c0 = cpuMsOf(pid);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < MS) {
    await once();
    n++;
  }
  return { rate: n / ((performance.now() - t0) / 1000), cpu: (cpuMsOf(pid) - c0) / n };
}
async function openRoom(label, bin) {
  const home = makeHome(`ab-handoff-${label.replace(/[^\w-]+/g, '_')}`);
  if (bin?.startsWith('--')) home.nodeArgs = bin.split(' ');
  else if (bin) home.bin = path.resolve(bin);
  const room = await startRoom(home);
  const agentToken = addParticipant(home, 'agent', 'read,write');
  const operator = await connect(era, room.url, room.token, 'operator');
  const agent = await connect(era, room.url, agentToken, 'agent');
  const cycle = () => handoffCycle(operator, agent);
  const close = async () => {
    await closeAll([operator, agent]);
    await room.stop();
    home.cleanup();
  };
  return { label, pid: room.pid, cycle, close };
}
const sides = [await openRoom('current'), ...(await Promise.all(bins.map((b) => openRoom(b.startsWith('--') ? b : path.relative(process.cwd(), b), b))))];
const bare = await startBare();
const base = await connect(era, bare.url, bare.token, 'baseline');
const load0 = os.loadavg();
try {
  const all = [
    ...sides.map((s) => [s.label, s.pid, s.cycle]),
    ['bare (4 no-ops)', bare.pid, () => noops(base)],
    ['bare (4 durable_noop)', bare.pid, () => noops(base, 4, 'durable_noop')],
  ];
  const runs = new Map(all.map(([label]) => [label, []]));
  for (const [, , once] of all) for (let i = 0; i < 10; i++) await once(); // warm up
  for (let r = 0; r < Number(roundsArg); r++) {
    for (let i = 0; i < all.length; i++) {
      const [label, pid, once] = all[(i + r) % all.length];
      runs.get(label).push(await rate(pid, once));
    }
  }
  const bareRuns = runs.get('bare (4 no-ops)');
  const durableRuns = runs.get('bare (4 durable_noop)');
  console.log(`${era}, ${roundsArg} rounds of ${MS} ms, load ${load0.map((x) => x.toFixed(1)).join(' ')} → ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  for (const [label, rs] of runs) {
    const perRound = (baseline) => median(rs.map((x, i) => x.rate / baseline[i].rate)).toFixed(2);
    console.log(
      `${label.padEnd(40)} ${median(rs.map((x) => x.rate)).toFixed(1).padStart(6)} cycles/s  ${perRound(bareRuns)}× bare, ${perRound(durableRuns)}× durable  ` +
        `CPU ${median(rs.map((x) => x.cpu)).toFixed(2)} ms/cycle  (rounds: ${rs.map((x) => x.rate.toFixed(1)).join(' ')})`,
    );
  }
  // CPU per cycle of each build against the first (the current out/), paired by round: the steadiest figure
  const first = runs.get(sides[0].label);
  for (const s of sides.slice(1)) {
    const paired = runs.get(s.label).map((x, i) => first[i].cpu / x.cpu);
    console.log(`CPU per cycle, ${sides[0].label} / ${s.label}: median of paired rounds ${median(paired).toFixed(3)} (${paired.map((x) => x.toFixed(2)).join(' ')})`);
  }
} finally {
  await closeAll([base]);
  await bare.stop();
  for (const s of sides) await s.close();
}
