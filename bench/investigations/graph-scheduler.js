#!/usr/bin/env node
// Unit-level: how one scheduling decision (decide(), run on every tick for every unfinished graph) and the
// submit-time checks (validateGraph: duplicates, missing dependencies, cycles, topological order) grow with
// the graph's size. Linear means the time per stage stays flat from 1,000 to 10,000 stages. `tick ms`: the decision as
// a tick makes it (decideOn: the graph's shape built once, the stages' states read into two arrays).
// usage: npm run build && node bench/investigations/graph-scheduler.js   (loads the built engine: out/main/bench-entry.js)
import { performance } from 'node:perf_hooks';
import { shape } from '../benchmarks/graph.js';

const entry = await import('../../out/main/bench-entry.js');
const { decide, decideOn, shapeOf, validateGraph } = entry;
if (typeof decide !== 'function' || typeof decideOn !== 'function' || typeof validateGraph !== 'function') {
  console.error('out/main/bench-entry.js does not export decide, decideOn and validateGraph: run npm run build');
  process.exit(2);
}

function timeIt(fn, minMs = 300) {
  let n = 0;
  const t = performance.now();
  do {
    fn();
    n++;
  } while (performance.now() - t < minMs);
  return (performance.now() - t) / n;
}

console.log('shape     stages   decide ms  µs/stage    tick ms  µs/stage   validate ms  µs/stage');
for (const kind of ['wide', 'chain', 'lattice']) {
  for (const n of [1_000, 10_000]) {
    const stages = shape(kind, n, kind === 'lattice' ? 40 : undefined);
    // half done, the rest pending: the middle of a run, where a tick has the most to look at
    const sched = stages.map((s, i) => ({ id: s.id, dependsOn: s.dependsOn, state: i < n / 2 ? 'completed' : 'pending', hasReadiness: false, ready: false }));
    const d = timeIt(() => decide(sched, { maxParallel: 2, onFailure: 'skip-dependents' }));
    const graphShape = shapeOf(sched);
    const t = timeIt(() => decideOn(graphShape, { states: sched.map((s) => s.state), serving: sched.map((s) => s.hasReadiness && s.ready) }, { maxParallel: 2, onFailure: 'skip-dependents' }));
    // a failure at the head: the skip propagates through every stage after it
    const failed = sched.map((s, i) => ({ ...s, state: i === 0 ? 'failed' : 'pending' }));
    const f = timeIt(() => decide(failed, { maxParallel: 2, onFailure: 'skip-dependents' }));
    const v = timeIt(() => validateGraph(stages, 10_000));
    const us = (ms) => ((ms * 1000) / n).toFixed(2).padStart(8);
    console.log(
      `${kind.padEnd(8)} ${String(n).padStart(7)} ${d.toFixed(2).padStart(10)} ${us(d)} ${t.toFixed(3).padStart(10)} ${us(t)}   (failed head ${f.toFixed(2)} ms) ${v.toFixed(2).padStart(10)} ${us(v)}`,
    );
  }
}
