import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodOutputs } from '../../../src-main/common/contract';
import { findTagged, isAlive } from '../../../src-main/engine/process/process-tree';
import { openBench, type GraphBench } from './graph-helpers';

let b: GraphBench;
beforeAll(async () => {
  b = await openBench();
});
afterAll(async () => {
  await b.close();
});

async function waitForPids(file: string, n: number): Promise<number[]> {
  for (let i = 0; i < 400; i++) {
    const pids = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
    if (pids.length >= n) return pids;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`only ${fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : 'nothing'} in ${file}`);
}

/** A stage whose tree tries to outlive it: a setsid grandchild, a nohup one, and a child that ignores INT and TERM. */
const stubborn = (pidFile: string) =>
  [
    `setsid sh -c 'echo $$ >> ${pidFile}; exec sleep 300' &`,
    `nohup sh -c 'echo $$ >> ${pidFile}; exec sleep 300' >/dev/null 2>&1 &`,
    `sh -c 'trap "" TERM INT; echo $$ >> ${pidFile}; while true; do sleep 1; done' &`,
    `echo $$ >> ${pidFile}`,
    'wait',
  ].join('\n');

type Cancel = MethodOutputs['tasks_cancel'];

describe('tasks_cancel', () => {
  it('cancelling a running graph leaves no process alive, setsid grandchild included', async () => {
    const pidFile = path.join(b.dir, 'tree.pids');
    const out = await b.run({
      stages: [
        { id: 'tree', command: stubborn(pidFile), killGraceMs: 200 },
        { id: 'next', command: 'true', dependsOn: ['tree'] },
      ],
    });
    const pids = await waitForPids(pidFile, 4);
    for (const pid of pids) expect(isAlive(pid)).toBe(true);
    const res = (await b.engine.call(b.engine.operator(), 'tasks_cancel', { graphId: out.graphId })) as Cancel;
    expect(res.changed).toEqual([
      { id: 'tree', from: 'running', to: 'cancelled' },
      { id: 'next', from: 'pending', to: 'cancelled' },
    ]);
    expect(res.graph.state).toBe('cancelled');
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(findTagged(`${b.engine.room.id}:stage:`, { prefix: true })).toEqual([]);
    const stage = (await b.status(out.graphId)).stages[0];
    expect(stage).toMatchObject({ state: 'cancelled', errorCode: 'CANCELLED' });
    expect(b.engine.room.tasks.get(out.graphId)?.status).toBe('cancelled');

    // an ended graph is left as it was, and says so
    const again = (await b.engine.call(b.engine.operator(), 'tasks_cancel', { graphId: out.graphId })) as Cancel;
    expect(again.changed).toEqual([]);
    expect(again.message).toMatch(/already ended \(cancelled\)/);
  });

  it('cancelling one stage skips its dependents; the rest of the graph goes on', async () => {
    const out = await b.run({
      stages: [
        { id: 'slow', command: 'sleep 30', killGraceMs: 200 },
        { id: 'after-slow', command: 'true', dependsOn: ['slow'] },
        { id: 'other', command: 'sleep 0.3' },
      ],
    });
    const res = (await b.engine.call(b.engine.operator(), 'tasks_cancel', { graphId: out.graphId, stageId: 'slow' })) as Cancel;
    expect(res.changed).toEqual(
      expect.arrayContaining([
        { id: 'slow', from: 'running', to: 'cancelled' },
        { id: 'after-slow', from: 'pending', to: 'skipped' },
      ]),
    );
    const end = await b.waitEnded(out.graphId);
    expect(end.stages.map((s) => s.state)).toEqual(['cancelled', 'skipped', 'completed']);
    expect(end.graph.state).toBe('cancelled'); // never success
    const done = (await b.engine.call(b.engine.operator(), 'tasks_cancel', { graphId: out.graphId, stageId: 'other' })) as Cancel;
    expect(done.message).toMatch(/already ended/);
  });

  it('cancelling a pending stage of a running graph', async () => {
    const out = await b.run({ maxParallel: 1, stages: [{ id: 'first', command: 'sleep 0.3' }, { id: 'second', command: 'echo no' }, { id: 'third', command: 'echo no', dependsOn: ['second'] }] });
    const res = (await b.engine.call(b.engine.operator(), 'tasks_cancel', { graphId: out.graphId, stageId: 'second' })) as Cancel;
    // its dependent is skipped in the same answer, not at some later event
    expect(res.changed).toEqual([
      { id: 'second', from: 'pending', to: 'cancelled' },
      { id: 'third', from: 'pending', to: 'skipped' },
    ]);
    const end = await b.waitEnded(out.graphId);
    expect(end.stages.map((s) => s.state)).toEqual(['completed', 'cancelled', 'skipped']);
  });

  it('a stage that exits leaves nothing behind (a background child is ended with it)', async () => {
    const pidFile = path.join(b.dir, 'bg.pids');
    const out = await b.run({ stages: [{ id: 'bg', command: `setsid sh -c 'echo $$ >> ${pidFile}; exec sleep 300' & sleep 0.2; echo done` }] });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages[0]?.state).toBe('completed');
    const [pid] = await waitForPids(pidFile, 1);
    expect(isAlive(pid as number)).toBe(false);
  });

  it('cancel during a retry wait ends the stage at once', async () => {
    const out = await b.run({ stages: [{ id: 'r', command: 'exit 1', retries: 3, retryBackoffMs: 60_000 }] });
    for (let i = 0; i < 200; i++) {
      const s = await b.stage(out.graphId, 'r');
      if (s.message?.includes('retrying')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    // the stage says it is waiting to retry, not that it runs (its state stays running: its attempts are not over)
    const waiting = await b.stage(out.graphId, 'r');
    expect(waiting).toMatchObject({ state: 'running', retrying: true, attempt: 1 });
    const topology = await b.engine.call(b.engine.operator(), 'tasks_graph', { graphId: out.graphId });
    expect(topology.stages.find((n) => n.id === 'r')?.retrying).toBe(true);
    const res = (await b.engine.call(b.engine.operator(), 'tasks_cancel', { graphId: out.graphId })) as Cancel;
    expect(res.graph.state).toBe('cancelled');
    expect(res.changed).toEqual([{ id: 'r', from: 'running', to: 'cancelled' }]);
  });
});
