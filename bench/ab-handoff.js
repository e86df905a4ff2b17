#!/usr/bin/env node
// A/B of builds on the handoff-cycle benchmark, in one run: one room per build (the current out/ and each
// BIN given), the same cycle (create → accept → complete → approve) on each in turn with four bare no-op
// calls in between, several rounds; cycles/s medians and the ratio to the bare server.
// usage: node bench/ab-handoff.js [2025|2026] [ROUNDS] [BIN…]   (BIN: a commonroom.js of another build)
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startBare } from './lib/bare.js';
import { closeAll, connect, handoffCycle, noops } from './lib/clients.js';
import { addParticipant, makeHome, startRoom } from './lib/room.js';
import { median } from './lib/stats.js';

const [era = '2026', roundsArg = '5', ...bins] = process.argv.slice(2);
const MS = Number(process.env.BENCH_AB_MS ?? 2000);
async function rate(once) {
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < MS) {
    await once();
    n++;
  }
  return n / ((performance.now() - t0) / 1000);
}
async function openRoom(label, bin) {
  const home = makeHome(`ab-handoff-${label}`);
  if (bin) home.bin = path.resolve(bin);
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
  return { label, cycle, close };
}
const sides = [await openRoom('current'), ...(await Promise.all(bins.map((b) => openRoom(path.relative(process.cwd(), b), b))))];
const bare = await startBare();
const base = await connect(era, bare.url, bare.token, 'baseline');
const fourNoops = () => noops(base);
try {
  const runs = new Map([...sides.map((s) => [s.label, []]), ['bare', []]]);
  const all = [...sides.map((s) => [s.label, s.cycle]), ['bare', fourNoops]];
  for (const [, once] of all) for (let i = 0; i < 10; i++) await once(); // warm up
  for (let r = 0; r < Number(roundsArg); r++) {
    for (let i = 0; i < all.length; i++) {
      const [label, once] = all[(i + r) % all.length];
      runs.get(label).push(await rate(once));
    }
  }
  const b = median(runs.get('bare'));
  for (const [label, rates] of runs) console.log(`${era} ${label.padEnd(28)} ${median(rates).toFixed(1)} cycles/s  ${(median(rates) / b).toFixed(2)}× bare  (rounds: ${rates.map((x) => x.toFixed(1)).join(' ')})`);
} finally {
  await closeAll([base]);
  await bare.stop();
  for (const s of sides) await s.close();
}
