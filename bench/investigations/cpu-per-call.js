#!/usr/bin/env node
// CPU time the server process spends per call (its threads' run time from /proc, `cpuMsOf` in bench/lib/room.js), which a loaded machine
// disturbs far less than wall time: the handoff cycle's four calls on the room (current out/, or BIN) against
// four no-op calls and four `durable_noop` calls (one fsync'd commit each) on the bare server, with the same
// clients of one era. The room's figure includes its
// commits' fsyncs only as the CPU they cost; their wait is what `handoff-cycle` adds on top.
// usage: node bench/investigations/cpu-per-call.js [2025|2026] [CYCLES] [BIN]
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { withHandoffRig } from '../lib/handoff-rig.js';
import { cpuMsOf } from '../lib/room.js';
import { median } from '../lib/stats.js';

const [era = '2026', cyclesArg = '100', bin] = process.argv.slice(2);
const cycles = Number(cyclesArg);
async function measure(pid, n, once) {
  const c0 = cpuMsOf(pid);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await once();
  return { cpu: (cpuMsOf(pid) - c0) / n, wall: (performance.now() - t0) / n };
}
await withHandoffRig('cpu', bin, ({ room, bare, withEra }) => withEra(era, async ({ cycle, fourNoops, fourDurable }) => {
  await measure(room.pid, 20, cycle);
  await measure(bare.pid, 20, fourNoops);
  await measure(bare.pid, 20, fourDurable);
  const r = { room: [], bare: [], durable: [] };
  for (let round = 0; round < 4; round++) {
    r.room.push(await measure(room.pid, cycles / 4, cycle));
    r.bare.push(await measure(bare.pid, cycles / 4, fourNoops));
    r.durable.push(await measure(bare.pid, cycles / 4, fourDurable));
  }
  const m = (side, k) => median(r[side].map((x) => x[k]));
  console.log(`${era}, load ${os.loadavg()[0].toFixed(1)}: room CPU ${m('room', 'cpu').toFixed(1)} ms/cycle (wall ${m('room', 'wall').toFixed(1)} ms); bare ${m('bare', 'cpu').toFixed(1)} ms per four no-ops (wall ${m('bare', 'wall').toFixed(1)} ms), ${m('durable', 'cpu').toFixed(1)} ms per four durable_noop (wall ${m('durable', 'wall').toFixed(1)} ms)`);
}));
