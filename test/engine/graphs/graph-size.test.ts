import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBench, type GraphBench } from './graph-helpers';

let b: GraphBench;
beforeAll(async () => {
  b = await openBench();
});
afterAll(async () => {
  await b.close();
});

/** rows×cols `true` stages, each after the one above it and the one to its left. */
function lattice(rows: number, cols: number) {
  const stages: { id: string; command: string[]; dependsOn: string[] }[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const dependsOn: string[] = [];
      if (r > 0) dependsOn.push(`s${r - 1}-${c}`);
      if (c > 0) dependsOn.push(`s${r}-${c - 1}`);
      stages.push({ id: `s${r}-${c}`, command: ['true'], dependsOn });
    }
  }
  return stages;
}

describe('large graphs', () => {
  it('a 10,000-stage graph is accepted and scheduled: maxParallel stages run at once, the rest wait; cancelling ends it', async () => {
    // its one source waits until cancelled: a `true` there could end (and start its two dependents) before the
    // answer is read, so what runs would depend on the machine's load
    const stages = lattice(250, 40).map((s) => (s.id === 's0-0' ? { ...s, command: ['sleep', '600'] } : s));
    const out = await b.run({ name: 'big', maxParallel: 64, stages });
    expect(out.stages).toHaveLength(10_000);
    // the lattice has one source: exactly it starts, everything else waits on it
    expect(out.stages.filter((s) => s.state === 'running').map((s) => s.id)).toEqual(['s0-0']);
    const cancelled = (await b.engine.call(b.engine.operator(), 'tasks_cancel', { graphId: out.graphId })) as { graph: { state: string } };
    expect(cancelled.graph.state).toBe('cancelled');
    const end = await b.status(out.graphId);
    expect(end.stages.filter((s) => s.state === 'pending' || s.state === 'running')).toEqual([]);
  }, 120_000);

  it('a graph past the old limit of 256 (a 20×30 lattice of true) runs to completion in dependency order', async () => {
    const stages = lattice(20, 30);
    const out = await b.run({ name: 'lattice-600', maxParallel: 16, stages });
    const end = await b.waitEnded(out.graphId, 110_000);
    expect(end.graph.state).toBe('completed');
    expect(end.stages.every((s) => s.state === 'completed')).toBe(true);
    const byId = new Map(end.stages.map((s) => [s.id, s] as const));
    for (const s of stages) {
      const started = byId.get(s.id)?.startedAt as string;
      // ISO times at millisecond precision: a dependency ended no later than its dependent started
      for (const d of s.dependsOn) expect(byId.get(d)?.endedAt as string <= started, `${d} ended before ${s.id} started`).toBe(true);
    }
  }, 120_000);

  it('a graph over 10,000 stages, or a stage with over 256 dependencies, is refused with what to do', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => ({ id: `s${i}`, command: ['true'] }));
    await expect(b.run({ stages: many })).rejects.toThrow(/at most 10000 stages.*split it/);
    const wide = Array.from({ length: 300 }, (_, i) => ({ id: `s${i}`, command: ['true'] }));
    const join = { id: 'join', command: ['true'], dependsOn: wide.map((s) => s.id) };
    await expect(b.run({ stages: [...wide, join] })).rejects.toThrow(/at most 256 stages: put a joining stage between/);
  });
});
