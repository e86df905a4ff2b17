import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Caller } from '../../src-main/common/dto';
import { RoomError } from '../../src-main/common/errors';
import { reconcileAfterRestart } from '../../src-main/engine/graphs/run/reconcile';
import { GraphRepo } from '../../src-main/engine/store/graphs';
import { openBench, refused, type Bench } from './handoffs/fixture';

/**
 * Every writer of task rows (a handoff's actions, the graph tick, a job, restart reconciliation) goes through
 * the task layer, so a move the task machine forbids (anything out of an ended task) is refused there and
 * writes nothing: not the task row, not a task event.
 */
let bench: Bench;
let alice: Caller;
let bob: Caller;

beforeEach(async () => {
  bench = await openBench();
  alice = await bench.add('alice', ['read', 'write']);
  bob = await bench.add('bob', ['read', 'write']);
});
afterEach(async () => {
  await bench.close();
});

const db = () => bench.engine.room.db;
const taskRow = (id: string) => db().prepare('SELECT * FROM tasks WHERE id = ?').get(id);
/** Events recorded as writes of this task (every task write stamps its id and the status it left). */
const taskEvents = (id: string) => db().prepare("SELECT id, kind FROM events WHERE json_extract(data, '$.taskId') = ? AND json_extract(data, '$.taskStatus') IS NOT NULL").all(id);

function gateFile(name: string): string {
  return path.join(bench.home.root, `${name}-${Math.random().toString(36).slice(2)}`);
}
const waitFor = (file: string) => `while [ ! -e '${file}' ]; do sleep 0.05; done`;

async function graphEnded(graphId: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const out = await bench.call(bench.op, 'tasks_status', { graphId, waitMs: 2_000 });
    if (out.graph.state !== 'pending' && out.graph.state !== 'running') return out.graph.state;
  }
  throw new Error(`graph ${graphId} never ended`);
}

describe('an illegal task transition is refused with nothing written, from every writer', () => {
  it('the task layer itself: an ended task never changes again', async () => {
    const task = bench.engine.tasks.create({ operation: 'test.kind', owner: 'alice', ttlMs: null, pollIntervalMs: 1000 });
    expect(bench.engine.tasks.transition(task.id, { status: 'completed', statusMessage: 'done' })).toBe(true);
    for (const change of [{ status: 'working' as const }, { status: 'cancelled' as const }, { statusMessage: 'rewritten' }]) {
      const error = await refused(db(), async () => bench.engine.tasks.update(task.id, change));
      expect(error.code).toBe('CONFLICT');
      expect(error.message).toMatch(/already ended \(completed\)/);
    }
    expect(bench.engine.tasks.transition(task.id, { status: 'failed' })).toBe(false);
    expect(bench.engine.tasks.find(bob, task.id)).toBeUndefined();
    expect(bench.engine.tasks.find(bench.op, 'made-up')).toBeUndefined();
  });

  it('handoff: completing a handoff whose task already ended is refused, and neither row nor event is written', async () => {
    const { handoff } = await bench.call(alice, 'handoff_create', { summary: 'write the report', to: 'bob' });
    await bench.call(bob, 'handoff_accept', { handoffId: handoff.id });
    const taskId = handoff.taskId;
    expect(bench.engine.tasks.transition(taskId, { status: 'cancelled', statusMessage: 'ended elsewhere' })).toBe(true);
    const error = await refused(db(), () => bench.call(bob, 'handoff_complete', { handoffId: handoff.id, result: 'done' }));
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toMatch(/cancelled/);
  });

  it('graph: a graph that ends after its task ended leaves the task row and its events as they were', async () => {
    const go = gateFile('go');
    const run = await bench.call(bench.op, 'tasks_run', { stages: [{ id: 'gate', command: waitFor(go), timeoutMs: 60_000 }] });
    expect(bench.engine.tasks.transition(run.taskId, { status: 'completed', statusMessage: 'ended elsewhere' })).toBe(true);
    const before = { row: taskRow(run.taskId), events: taskEvents(run.taskId) };
    fs.writeFileSync(go, '');
    expect(await graphEnded(run.graphId)).toBe('completed');
    // the stage's progress write and the graph's end write were both refused by the task machine
    expect(taskRow(run.taskId)).toEqual(before.row);
    expect(taskEvents(run.taskId)).toEqual(before.events);
    const ended = db().prepare("SELECT data FROM events WHERE kind = 'graph.ended' AND subject = ?").get(run.graphId) as { data: string };
    expect(JSON.parse(ended.data)).not.toHaveProperty('taskStatus');
  });

  it('job: a job that finishes after its task ended writes nothing', async () => {
    let finish: (v: Record<string, unknown>) => void = () => undefined;
    const task = bench.engine.jobs.start(alice, () => new Promise((resolve) => (finish = resolve)), { ttlMs: null, pollIntervalMs: 1000 });
    expect(bench.engine.tasks.transition(task.id, { status: 'failed', statusMessage: 'ended elsewhere' })).toBe(true);
    const before = { row: taskRow(task.id), events: taskEvents(task.id) };
    finish({ content: [] });
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(taskRow(task.id)).toEqual(before.row);
    expect(taskEvents(task.id)).toEqual(before.events);
  });

  it('restart reconciliation: a graph left running whose task already ended is reconciled without touching the task', async () => {
    const go = gateFile('never');
    const run = await bench.call(bench.op, 'tasks_run', { stages: [{ id: 'held', command: waitFor(go), timeoutMs: 60_000 }] });
    expect(bench.engine.tasks.transition(run.taskId, { status: 'cancelled', statusMessage: 'ended elsewhere' })).toBe(true);
    const before = { row: taskRow(run.taskId), events: taskEvents(run.taskId) };
    const repo = new GraphRepo(db());
    const report = await reconcileAfterRestart(bench.engine.ctx, repo, bench.engine.tasks, `${bench.engine.room.id}:stage:`);
    expect(report.stages).toBe(1);
    expect(repo.graph(run.graphId)?.state).toBe('failed');
    // this engine's own runtime still watches the stage, so it may record the kill (SIGNAL) before the
    // reconciliation's commit does (RUNNER_RESTARTED): either way the stage ended failed
    expect(repo.stages(run.graphId)[0]?.state).toBe('failed');
    expect(['RUNNER_RESTARTED', 'SIGNAL']).toContain(repo.stages(run.graphId)[0]?.errorCode);
    expect(taskRow(run.taskId)).toEqual(before.row);
    expect(taskEvents(run.taskId)).toEqual(before.events);
  });

  it('stage writes pass the stage machine: an ended stage cannot start again', () => {
    const repo = new GraphRepo(db());
    expect(() => repo.updateStage('g', 's', { state: 'completed' }, { state: 'running' })).toThrow(RoomError);
    expect(() => repo.updateStage('g', 's', { state: 'pending' }, { state: 'completed' })).toThrow(/a pending stage cannot become completed/);
  });
});
