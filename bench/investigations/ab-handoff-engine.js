#!/usr/bin/env node
// The handoff cycle in-process, without HTTP or the SDK: two builds' engines in one process, the same four
// calls (each with its own signal, as the MCP door passes the SDK's per-request one) and the audit flush of
// the turn, alternating rounds; this process's CPU per cycle (process.cpuUsage), which a loaded machine
// disturbs far less than wall time, and the per-round ratio B/A. MODE OFF sets synchronous=OFF before every
// cycle (the audit flush restores the room's setting after each), leaving only the engine's own work.
// usage: node bench/investigations/ab-handoff-engine.js OUT_A OUT_B [FULL|OFF] [ROUNDS] [CYCLES]   (each an `out/` of
// `npm run build`, inside this checkout so that node_modules resolve)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { median } from '../lib/stats.js';

const [aDir, bDir, mode = 'FULL', roundsArg = '12', cyclesArg = '50'] = process.argv.slice(2);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ab-handoff-engine-'));
const signal = () => ({ signal: new globalThis.AbortController().signal });

async function open(label, dir) {
  const { Engine, Room } = await import(path.join(path.resolve(dir), 'main/bench-entry.js'));
  fs.mkdirSync(path.join(root, label), { recursive: true, mode: 0o700 });
  const paths = { dataDir: path.join(root, label, 'data'), configDir: path.join(root, label, 'config') };
  const room = Room.open({ markdown: path.join(root, label, 'room.md'), paths });
  const engine = await Engine.start(room);
  const op = engine.operator();
  const { token } = await engine.call(op, 'participant_add', { name: 'agent', capabilities: ['read', 'write'] });
  const ag = engine.authenticate(token);
  const cycle = async () => {
    if (mode !== 'FULL') room.db.pragma(`synchronous = ${mode}`);
    const { handoff } = await engine.call(op, 'handoff_create', { summary: 'benchmark cycle', to: 'agent' }, signal());
    await engine.call(ag, 'handoff_accept', { handoffId: handoff.id }, signal());
    await engine.call(ag, 'handoff_complete', { handoffId: handoff.id, result: 'done' }, signal());
    await engine.call(op, 'handoff_approve', { handoffId: handoff.id }, signal());
    await new Promise((resolve) => setImmediate(resolve)); // the audit flush of the turn
  };
  return { label, dir, engine, cycle };
}

const sides = [await open('A', aDir), await open('B', bDir)];
try {
  const cpu = { A: [], B: [] };
  const wall = { A: [], B: [] };
  for (const s of sides) for (let i = 0; i < 100; i++) await s.cycle();
  const n = Number(cyclesArg);
  for (let r = 0; r < Number(roundsArg); r++) {
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await s.cycle();
      const c = process.cpuUsage(c0);
      cpu[s.label].push((c.user + c.system) / 1000 / n);
      wall[s.label].push((performance.now() - t0) / n);
    }
  }
  const ratios = cpu.A.map((a, i) => cpu.B[i] / a);
  for (const s of sides) console.log(`${s.label} ${s.dir}: CPU ${median(cpu[s.label]).toFixed(2)} ms/cycle, wall ${median(wall[s.label]).toFixed(2)} ms/cycle (${mode})`);
  console.log(`B/A CPU per cycle: median of paired rounds ${median(ratios).toFixed(3)} (${ratios.map((x) => x.toFixed(2)).join(' ')}); load ${os.loadavg()[0].toFixed(1)}`);
} finally {
  for (const s of sides) await s.engine.close();
  fs.rmSync(root, { recursive: true, force: true });
}
