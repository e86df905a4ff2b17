import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src-main/common/dto';
import { Engine } from '../../../src-main/engine/engine';
import { sweepHandoffTasks } from '../../../src-main/engine/handoffs/sweeper';
import { Room } from '../../../src-main/engine/room/room';
import { openBench, type Bench } from './fixture';

const HOUR = 60 * 60 * 1000;
const TTL = 24 * HOUR;

let bench: Bench;
let alice: Caller;
let bob: Caller;

beforeEach(async () => {
  bench = await openBench();
  alice = await bench.add('alice', ['read', 'write']);
  bob = await bench.add('bob', ['read', 'write']);
});
afterEach(() => bench.close());

const sweep = () => sweepHandoffTasks(bench.engine.ctx, bench.engine.tasks);
const taskRow = (id: string) => bench.engine.room.db.prepare('SELECT status, status_message FROM tasks WHERE id = ?').get(id);

describe('TTL with an injected clock', () => {
  it('a task still running one TTL after creation fails with "task expired" and its handoff is cancelled', async () => {
    const open = (await bench.call(alice, 'handoff_create', { summary: 'never taken', to: 'bob' })).handoff;
    const waiting = (await bench.call(alice, 'handoff_create', { summary: 'stuck on a question', to: 'bob' })).handoff;
    await bench.call(bob, 'handoff_accept', { handoffId: waiting.id });
    await bench.call(bob, 'handoff_request_input', { handoffId: waiting.id, requests: { q: { message: 'which branch?' } } });

    // activity inside the TTL does not extend it, and nothing inside the TTL is touched
    bench.clock.advance(TTL - 1);
    expect(sweep()).toEqual({ expired: [], deleted: [] });
    expect(taskRow(open.taskId)).toEqual({ status: 'working', status_message: null });

    bench.clock.advance(1);
    expect(sweep().expired.sort()).toEqual([open.taskId, waiting.taskId].sort());
    for (const h of [open, waiting]) {
      const after = (await bench.call(alice, 'handoff_get', { handoffId: h.id })).handoff;
      expect(after.status).toBe('cancelled');
      expect(after.cancellation).toMatchObject({ by: null, reason: 'task expired' });
      expect(after.task).toMatchObject({ status: 'failed', statusMessage: 'task expired', error: { code: -32001, message: 'task expired' } });
      expect(after.task?.inputRequests).toBeUndefined();
      const events = (await bench.call(alice, 'handoff_events', { handoffId: h.id })).events;
      expect(events.at(-1)).toMatchObject({ kind: 'handoff.expired', actor: null, data: { status: 'cancelled', taskStatus: 'failed' } });
    }
    // a second sweep finds nothing new to expire
    expect(sweep().expired).toEqual([]);
  });

  it('a terminal task row is deleted one TTL after its last update; the handoff keeps the result', async () => {
    const h = (await bench.call(alice, 'handoff_create', { summary: 'summarise the thread', to: 'bob' })).handoff;
    await bench.call(bob, 'handoff_accept', { handoffId: h.id });
    bench.clock.advance(10 * HOUR);
    await bench.call(bob, 'handoff_complete', { handoffId: h.id, result: 'the summary' });

    // 24 h after creation, but only 14 h after it ended: kept
    bench.clock.advance(14 * HOUR);
    expect(sweep()).toEqual({ expired: [], deleted: [] });
    expect(taskRow(h.taskId)).toEqual({ status: 'completed', status_message: null });

    bench.clock.advance(10 * HOUR);
    expect(sweep()).toEqual({ expired: [], deleted: [h.taskId] });
    expect(taskRow(h.taskId)).toBeUndefined();
    const after = (await bench.call(alice, 'handoff_get', { handoffId: h.id })).handoff;
    expect(after).toMatchObject({ status: 'result_ready', task: null, result: { text: 'the summary' } });
    // approval still works on a handoff whose task row is gone
    expect((await bench.call(bench.op, 'handoff_approve', { handoffId: h.id })).handoff.status).toBe('approved');
    const kinds = (await bench.call(alice, 'handoff_events', { handoffId: h.id })).events.map((e) => e.kind);
    expect(kinds).toEqual(['handoff.created', 'handoff.accepted', 'handoff.completed', 'handoff.task_deleted', 'handoff.approved']);
  });

  it('active work inside its TTL is never deleted, however many sweeps run', async () => {
    const h = (await bench.call(alice, 'handoff_create', { summary: 'long job', to: 'bob' })).handoff;
    await bench.call(bob, 'handoff_accept', { handoffId: h.id });
    for (let i = 0; i < 23; i++) {
      bench.clock.advance(HOUR);
      expect(sweep()).toEqual({ expired: [], deleted: [] });
    }
    expect(taskRow(h.taskId)).toEqual({ status: 'working', status_message: null });
  });

  it('an expired task ends a cancelled (not failed) handoff only once, and is itself deleted one TTL later', async () => {
    const h = (await bench.call(alice, 'handoff_create', { summary: 'forgotten', to: 'bob' })).handoff;
    bench.clock.advance(TTL);
    expect(sweep().expired).toEqual([h.taskId]);
    bench.clock.advance(TTL);
    expect(sweep().deleted).toEqual([h.taskId]);
    expect((await bench.call(alice, 'handoff_get', { handoffId: h.id })).handoff).toMatchObject({ status: 'cancelled', task: null });
  });
});

describe('the sweeper runs when the engine starts', () => {
  it('a room reopened after the TTL passed expires the stale task on start', async () => {
    const h = (await bench.call(alice, 'handoff_create', { summary: 'left behind', to: 'bob' })).handoff;
    const { home } = bench;
    const markdown = bench.engine.room.location.markdownPath;
    await bench.engine.close();
    const later = Date.parse(h.createdAt) + TTL;
    const engine = await Engine.start(Room.open({ markdown, paths: home.paths, clock: () => new Date(later) }));
    try {
      const after = await engine.call(engine.operator(), 'handoff_get', { handoffId: h.id });
      expect(after.handoff).toMatchObject({ status: 'cancelled', task: { status: 'failed', statusMessage: 'task expired' } });
    } finally {
      await engine.close();
    }
  });
});
