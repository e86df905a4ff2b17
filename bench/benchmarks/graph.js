// graph: task graphs of `true` stages (wide, chain, lattice), maxParallel 2, submitted with tasks_run and
// followed with tasks_status until the graph ended, against a bare Node spawn loop with the same
// dependencies and parallelism, and `make -j2` on the same graph (when make is installed).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { makeHome, startRoom } from '../lib/room.js';
import { alternate, fmt, median, spreadPct } from '../lib/stats.js';

const PARALLEL = 2;

/** Stages as {id, dependsOn}: `wide` (independent), `chain` (each after the previous), `lattice` rows×cols (after the one above and the one to the left). */
export function shape(kind, n, cols = 16) {
  if (kind === 'wide') return Array.from({ length: n }, (_, i) => ({ id: `s${i}`, dependsOn: [] }));
  if (kind === 'chain') return Array.from({ length: n }, (_, i) => ({ id: `s${i}`, dependsOn: i > 0 ? [`s${i - 1}`] : [] }));
  const rows = Math.ceil(n / cols);
  const stages = [];
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols && stages.length < n; c++) {
      const deps = [];
      if (r > 0) deps.push(`s${(r - 1) * cols + c}`);
      if (c > 0) deps.push(`s${r * cols + c - 1}`);
      stages.push({ id: `s${r * cols + c}`, dependsOn: deps });
    }
  return stages;
}

/** The bare baseline: spawn `true` for each stage whose dependencies completed, at most PARALLEL at once. */
export async function bareLoop(stages) {
  const t = performance.now();
  const waiting = new Map(stages.map((s) => [s.id, new Set(s.dependsOn)]));
  const dependents = new Map(stages.map((s) => [s.id, []]));
  for (const s of stages) for (const d of s.dependsOn) dependents.get(d).push(s.id);
  const ready = stages.filter((s) => s.dependsOn.length === 0).map((s) => s.id);
  let running = 0;
  let done = 0;
  await new Promise((resolve, reject) => {
    const pump = () => {
      while (running < PARALLEL && ready.length > 0) {
        const id = ready.shift();
        running++;
        const child = spawn('true', [], { stdio: 'ignore' });
        child.on('error', reject);
        child.on('exit', () => {
          running--;
          done++;
          for (const d of dependents.get(id)) {
            const w = waiting.get(d);
            w.delete(id);
            if (w.size === 0) ready.push(d);
          }
          if (done === stages.length) resolve();
          else pump();
        });
      }
    };
    pump();
  });
  return performance.now() - t;
}

function makefile(dir, stages) {
  const file = path.join(dir, 'Makefile');
  const lines = [`.PHONY: all ${stages.map((s) => s.id).join(' ')}`, `all: ${stages.map((s) => s.id).join(' ')}`];
  for (const s of stages) lines.push(`${s.id}: ${s.dependsOn.join(' ')}`, '\t@true');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function make(file) {
  const t = performance.now();
  await new Promise((resolve, reject) => {
    const child = spawn('make', [`-j${PARALLEL}`, '-s', '-f', file], { stdio: 'ignore' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`make exited ${code}`))));
  });
  return performance.now() - t;
}

async function ours(client, stages, name) {
  const t = performance.now();
  const spec = { name, maxParallel: PARALLEL, stages: stages.map((s) => ({ id: s.id, command: ['true'], dependsOn: s.dependsOn })) };
  const { graphId } = await callTool(client, 'tasks_run', spec);
  for (;;) {
    const status = await callTool(client, 'tasks_status', { graphId });
    if (status.graph.endedAt) {
      if (status.graph.state !== 'completed') throw new Error(`graph ${name} ended ${status.graph.state}`);
      return performance.now() - t;
    }
    await sleep(25);
  }
}

export default {
  name: 'graph',
  async run({ smoke, log }) {
    const n = smoke ? 8 : 256;
    const rounds = smoke ? 1 : 2;
    const hasMake = spawnSync('make', ['--version'], { stdio: 'ignore' }).status === 0;
    const home = makeHome('graph');
    const room = await startRoom(home);
    const client = await connect('2026', room.url, room.token);
    const rows = [];
    try {
      for (const kind of ['wide', 'chain', 'lattice']) {
        const stages = shape(kind, n);
        const file = makefile(home.root, stages);
        const r = await alternate(
          rounds,
          () => ours(client, stages, `${kind}-${n}`),
          async () => ({ loop: await bareLoop(stages), make: hasMake ? await make(file) : NaN }),
        );
        const oursMs = median(r.ours);
        const loopMs = median(r.baseline.map((x) => x.loop));
        const makeMs = median(r.baseline.map((x) => x.make));
        const perS = (ms) => fmt(n / (ms / 1000), 0);
        log(`${kind} ${n}: ours ${perS(oursMs)} stages/s, loop ${perS(loopMs)}, make ${hasMake ? perS(makeMs) : 'n/a'}`);
        rows.push({
          name: `graph ${kind} ${n}${kind === 'lattice' ? ` (${Math.ceil(n / 16)}×16)` : ''}`,
          ours: `${perS(oursMs)} stages/s`,
          baseline: `loop ${perS(loopMs)}/s; make -j2 ${hasMake ? `${perS(makeMs)}/s` : 'not installed'}`,
          ratio: `${fmt(oursMs / loopMs, 1)}× loop time (${hasMake ? `${fmt(oursMs / makeMs, 1)}× make` : 'no make'}) ±${fmt(spreadPct(r.ours), 0)}%`,
          goal: '≤ 1.3× the bare loop',
          met: oursMs / loopMs <= 1.3,
          figures: { kind, stages: n, oursMs, loopMs, makeMs, rounds: r },
        });
      }
      // the sizes the issue asks for: the 25×40 lattice (1,000 stages) and a 250×40 one (10,000), submitted
      // (time to an answer with the first stage running), then cancelled: running them at maxParallel 2 takes minutes
      const sizes = smoke ? [[25, '1,000 (25×40)']] : [[25, '1,000 (25×40)'], [250, '10,000 (250×40)']];
      for (const [rowsN, label] of sizes) {
        const big = shape('lattice', rowsN * 40, 40);
        let refused = null;
        let submitMs = NaN;
        try {
          const t = performance.now();
          const { graphId } = await callTool(client, 'tasks_run', { name: `lattice-${big.length}`, maxParallel: PARALLEL, stages: big.map((s) => ({ id: s.id, command: ['true'], dependsOn: s.dependsOn })) });
          submitMs = performance.now() - t;
          await callTool(client, 'tasks_cancel', { graphId });
        } catch (error) {
          refused = String(error.message ?? error).slice(0, 200);
        }
        log(`lattice ${label}: ${refused ? `refused: ${refused}` : `accepted in ${fmt(submitMs, 0)} ms`}`);
        rows.push({
          name: `graph lattice ${label}`,
          ours: refused ? 'refused' : `accepted, submitted in ${fmt(submitMs, 0)} ms (then cancelled)`,
          baseline: '',
          ratio: '',
          goal: '10,000 stages accepted',
          met: refused === null,
          figures: { refused, submitMs },
        });
      }
    } finally {
      await closeAll([client]);
      await room.stop();
      home.cleanup();
    }
    return rows;
  },
};
