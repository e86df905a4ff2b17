import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src-main/common/dto';
import { LIMITS } from '../../../src-main/common/limits';
import type { RoomEvent } from '../../../src-main/engine/core/event-bus';
import { counts, openBench, refused, snapshot, type Bench } from './fixture';

let bench: Bench;
let alice: Caller; // creates work
let bob: Caller; // does it
let carol: Caller; // has no part in it
let reader: Caller; // read only

beforeEach(async () => {
  bench = await openBench();
  alice = await bench.add('alice', ['read', 'write']);
  bob = await bench.add('bob', ['read', 'write']);
  carol = await bench.add('carol', ['read', 'write']);
  reader = await bench.add('reader', ['read']);
});
afterEach(() => bench.close());

const db = () => bench.engine.room.db;

async function created(to: string | null = 'bob', extra: Record<string, unknown> = {}) {
  const out = await bench.call(alice, 'handoff_create', { summary: 'write the release notes', ...(to ? { to } : {}), ...extra });
  return out.handoff.id;
}

async function toResultReady() {
  const id = await created();
  await bench.call(bob, 'handoff_accept', { handoffId: id });
  await bench.call(bob, 'handoff_complete', { handoffId: id, result: 'done: notes in NOTES.md' });
  return id;
}

describe('a handoff and its task', () => {
  it('creates both records with the seed task fields, and copies the result onto the handoff', async () => {
    const out = await bench.call(alice, 'handoff_create', {
      summary: 'write the release notes',
      to: 'bob',
      constraints: 'keep it under a page',
      artifacts: [{ uri: 'file:///repo/CHANGELOG.md', name: 'changelog' }, { uri: 'https://example.invalid/never-fetched' }],
      idempotency_key: 'notes-1',
    });
    expect(out.created).toBe(true);
    const h = out.handoff;
    expect(h).toMatchObject({ status: 'open', owner: 'alice', to: 'bob', assignee: null, constraints: 'keep it under a page', result: null });
    expect(h.artifacts).toHaveLength(2);
    expect(h.task).toMatchObject({
      taskId: h.taskId,
      operation: 'handoff.execute',
      owner: 'alice',
      assignee: null,
      status: 'working',
      ttl: 24 * 60 * 60 * 1000,
      pollInterval: 5000,
      correlationId: h.id,
      schemaVersion: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
    });

    bench.clock.advance(1000);
    const accepted = (await bench.call(bob, 'handoff_accept', { handoffId: h.id })).handoff;
    expect(accepted.status).toBe('accepted');
    expect(accepted.assignee).toBe('bob');
    // no extra "accepted" task status: the task stays working and records the assignee
    expect(accepted.task).toMatchObject({ status: 'working', assignee: 'bob' });

    const done = (await bench.call(bob, 'handoff_complete', { handoffId: h.id, result: 'notes written', artifacts: [{ uri: 'file:///repo/NOTES.md' }] })).handoff;
    expect(done.status).toBe('result_ready');
    expect(done.task?.status).toBe('completed');
    expect(done.result).toMatchObject({ text: 'notes written', completedBy: 'bob', artifacts: [{ uri: 'file:///repo/NOTES.md' }] });
    expect(done.task?.result).toEqual(done.result);

    const taskRowBefore = db().prepare('SELECT * FROM tasks WHERE id = ?').get(h.taskId);
    bench.clock.advance(1000);
    const approved = (await bench.call(bench.op, 'handoff_approve', { handoffId: h.id, reason: 'good' })).handoff;
    expect(approved.status).toBe('approved');
    expect(approved.decision).toMatchObject({ approved: true, by: 'operator', reason: 'good' });
    // approval is a separate decision: the task row is exactly as it was, updated_at included
    expect(db().prepare('SELECT * FROM tasks WHERE id = ?').get(h.taskId)).toEqual(taskRowBefore);
  });

  it('input requests: keyed, answered by the owner, the task back to working only when all are answered', async () => {
    const id = await created();
    await bench.call(bob, 'handoff_accept', { handoffId: id });
    const asked = (
      await bench.call(bob, 'handoff_request_input', {
        handoffId: id,
        requests: { tone: { message: 'formal or casual?' }, length: { message: 'how long?', requestedSchema: { type: 'object', properties: { words: { type: 'number' } } } } },
      })
    ).handoff;
    expect(asked.task?.status).toBe('input_required');
    expect(Object.keys(asked.task?.inputRequests ?? {})).toEqual(['tone', 'length']);
    expect(asked.task?.inputRequests?.tone).toEqual({
      method: 'elicitation/create',
      params: { mode: 'form', message: 'formal or casual?', requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } },
    });

    const wrongKey = await refused(db(), () => bench.call(alice, 'handoff_answer_input', { handoffId: id, answers: { colour: { action: 'accept' } } }));
    expect(wrongKey.message).toMatch(/no outstanding input request "colour"; outstanding: tone, length/);
    const notOwner = await refused(db(), () => bench.call(carol, 'handoff_answer_input', { handoffId: id, answers: { tone: { action: 'accept' } } }));
    expect(notOwner.code).toBe('NOT_FOUND');
    // bob is the assignee, not the owner, and cannot approve: he cannot answer his own question
    expect((await refused(db(), () => bench.call(bob, 'handoff_answer_input', { handoffId: id, answers: { tone: { action: 'accept' } } }))).code).toBe('FORBIDDEN');

    const half = (await bench.call(alice, 'handoff_answer_input', { handoffId: id, answers: { tone: { action: 'accept', content: { answer: 'casual' } } } })).handoff;
    expect(half.task?.status).toBe('input_required');
    expect(Object.keys(half.task?.inputRequests ?? {})).toEqual(['length']);
    const all = (await bench.call(bench.op, 'handoff_answer_input', { handoffId: id, answers: { length: { action: 'decline' } } })).handoff;
    expect(all.task?.status).toBe('working');
    expect(all.task?.inputRequests).toBeUndefined();
    expect(all.inputAnswers.tone).toMatchObject({ action: 'accept', content: { answer: 'casual' }, answeredBy: 'alice' });
    expect(all.inputAnswers.length).toMatchObject({ action: 'decline', answeredBy: 'operator' });
  });

  it('input keys are plain keys, even ones that name Object.prototype members', async () => {
    const id = await created();
    await bench.call(bob, 'handoff_accept', { handoffId: id });
    const e = await refused(db(), () => bench.call(alice, 'handoff_answer_input', { handoffId: id, answers: { constructor: { action: 'accept' as const } } }));
    expect(e.code).toBe('CONFLICT');
    await bench.call(bob, 'handoff_request_input', { handoffId: id, requests: { constructor: { message: 'which class?' } } });
    const wrong = await refused(db(), () => bench.call(alice, 'handoff_answer_input', { handoffId: id, answers: { toString: { action: 'accept' as const } } }));
    expect(wrong.message).toMatch(/no outstanding input request "toString"; outstanding: constructor/);
    const answered = (await bench.call(alice, 'handoff_answer_input', { handoffId: id, answers: { constructor: { action: 'accept' as const, content: { answer: 'Room' } } } })).handoff;
    expect(answered.task?.status).toBe('working');
    expect(answered.inputAnswers.constructor).toMatchObject({ action: 'accept', content: { answer: 'Room' } });
  });

  it('a handoff to anyone: another participant accepts it; the owner cannot', async () => {
    const id = await created(null);
    expect((await refused(db(), () => bench.call(alice, 'handoff_accept', { handoffId: id }))).message).toMatch(/another participant accepts it/);
    const taken = (await bench.call(carol, 'handoff_accept', { handoffId: id })).handoff;
    expect(taken.assignee).toBe('carol');
    // once taken, bob no longer has a part in it
    expect((await refused(db(), () => bench.call(bob, 'handoff_get', { handoffId: id }))).code).toBe('NOT_FOUND');
  });

  it('refuses an addressee that does not exist, is the caller, or cannot write', async () => {
    expect((await refused(db(), () => bench.call(alice, 'handoff_create', { summary: 's', to: 'nobody' }))).code).toBe('NOT_FOUND');
    expect((await refused(db(), () => bench.call(alice, 'handoff_create', { summary: 's', to: 'alice' }))).code).toBe('INVALID_INPUT');
    expect((await refused(db(), () => bench.call(alice, 'handoff_create', { summary: 's', to: 'reader' }))).message).toMatch(/lacks the "write" capability/);
    // and a read-only participant cannot hand work out at all
    expect((await refused(db(), () => bench.call(reader, 'handoff_create', { summary: 's' }))).message).toMatch(/needs the "write" capability/);
  });
});

describe('every illegal transition is refused, naming the state, with nothing written', () => {
  type Action = 'accept' | 'request_input' | 'answer_input' | 'complete' | 'approve' | 'reject' | 'cancel';
  const ACTIONS: Action[] = ['accept', 'request_input', 'answer_input', 'complete', 'approve', 'reject', 'cancel'];
  /** Each state the engine can reach, how to get there, and the only actions it allows. */
  const STATES: { name: string; status: string; reach: (id: string) => Promise<unknown>; legal: Action[] }[] = [
    { name: 'open', status: 'open', reach: async () => {}, legal: ['accept', 'cancel'] },
    { name: 'accepted (task working)', status: 'accepted', reach: (id) => act('accept', id), legal: ['request_input', 'complete', 'cancel'] },
    {
      name: 'accepted (task input_required)',
      status: 'input_required',
      reach: async (id) => {
        await act('accept', id);
        await act('request_input', id);
      },
      legal: ['answer_input', 'cancel'],
    },
    {
      name: 'result_ready',
      status: 'result_ready',
      reach: async (id) => {
        await act('accept', id);
        await act('complete', id);
      },
      legal: ['approve', 'reject'],
    },
    {
      name: 'approved',
      status: 'approved',
      reach: async (id) => {
        await act('accept', id);
        await act('complete', id);
        await act('approve', id);
      },
      legal: [],
    },
    {
      name: 'rejected',
      status: 'rejected',
      reach: async (id) => {
        await act('accept', id);
        await act('complete', id);
        await act('reject', id);
      },
      legal: [],
    },
    { name: 'cancelled', status: 'cancelled', reach: (id) => act('cancel', id), legal: [] },
  ];

  /** Each action by the participant whose role allows it, so only the state can refuse it. */
  function act(action: Action, id: string): Promise<unknown> {
    switch (action) {
      case 'accept':
        return bench.call(bob, 'handoff_accept', { handoffId: id });
      case 'request_input':
        return bench.call(bob, 'handoff_request_input', { handoffId: id, requests: { q: { message: 'which one?' } } });
      case 'answer_input':
        return bench.call(alice, 'handoff_answer_input', { handoffId: id, answers: { q: { action: 'accept', content: { answer: 'this one' } } } });
      case 'complete':
        return bench.call(bob, 'handoff_complete', { handoffId: id, result: 'the result' });
      case 'approve':
        return bench.call(bench.op, 'handoff_approve', { handoffId: id });
      case 'reject':
        return bench.call(bench.op, 'handoff_reject', { handoffId: id, reason: 'not it' });
      case 'cancel':
        return bench.call(alice, 'handoff_cancel', { handoffId: id });
    }
  }

  it.each(STATES)('from $name: every action it does not allow is a CONFLICT naming the state; the allowed ones work', async (state) => {
    const id = await created();
    await state.reach(id);
    for (const action of ACTIONS.filter((a) => !state.legal.includes(a))) {
      const e = await refused(db(), () => act(action, id));
      expect(e.code, `${action} from ${state.name}`).toBe('CONFLICT');
      expect(e.message, `${action} from ${state.name}`).toContain(state.status);
    }
    for (const action of state.legal) {
      const fresh = await created();
      await state.reach(fresh);
      await expect(act(action, fresh), `${action} from ${state.name}`).resolves.toBeDefined();
    }
  });

  it('from open', async () => {
    const id = await created();
    for (const [method, input, pattern] of [
      ['handoff_request_input', { handoffId: id, requests: { q: { message: 'm' } } }, /is open/],
      ['handoff_answer_input', { handoffId: id, answers: { q: { action: 'accept' } } }, /is open/],
      ['handoff_complete', { handoffId: id, result: 'r' }, /is open: accept it before/],
    ] as const) {
      const e = await refused(db(), () => bench.call(method === 'handoff_answer_input' ? alice : bob, method, input as never));
      expect(e.code, method).toBe('CONFLICT');
      expect(e.message, method).toMatch(pattern);
    }
    for (const method of ['handoff_approve', 'handoff_reject'] as const) {
      const e = await refused(db(), () => bench.call(bench.op, method, { handoffId: id, reason: 'why' }));
      expect(e.code).toBe('CONFLICT');
      expect(e.message).toMatch(/handoff that is open/);
    }
  });

  it('from accepted (working and input_required)', async () => {
    const id = await created();
    await bench.call(bob, 'handoff_accept', { handoffId: id });
    expect((await refused(db(), () => bench.call(bob, 'handoff_accept', { handoffId: id }))).message).toMatch(/is accepted: only an open handoff/);
    expect((await refused(db(), () => bench.call(alice, 'handoff_answer_input', { handoffId: id, answers: { q: { action: 'accept' } } }))).message).toMatch(/task is working/);
    expect((await refused(db(), () => bench.call(bench.op, 'handoff_approve', { handoffId: id }))).message).toMatch(/is accepted/);
    await bench.call(bob, 'handoff_request_input', { handoffId: id, requests: { q: { message: 'm' } } });
    expect((await refused(db(), () => bench.call(bob, 'handoff_request_input', { handoffId: id, requests: { r: { message: 'm' } } }))).message).toMatch(/already input_required/);
    expect((await refused(db(), () => bench.call(bob, 'handoff_complete', { handoffId: id, result: 'r' }))).message).toMatch(/input_required/);
    // the wrong role is refused too, after the state allowed the move
    await bench.call(alice, 'handoff_answer_input', { handoffId: id, answers: { q: { action: 'accept', content: { answer: 'yes' } } } });
    expect((await refused(db(), () => bench.call(alice, 'handoff_complete', { handoffId: id, result: 'r' }))).code).toBe('FORBIDDEN');
    expect((await refused(db(), () => bench.call(alice, 'handoff_request_input', { handoffId: id, requests: { z: { message: 'm' } } }))).code).toBe('FORBIDDEN');
    expect((await refused(db(), () => bench.call(bob, 'handoff_cancel', { handoffId: id }))).code).toBe('FORBIDDEN');
  });

  it('from result_ready: a second completion does not replace the result; cancel is refused', async () => {
    const id = await toResultReady();
    const e = await refused(db(), () => bench.call(bob, 'handoff_complete', { handoffId: id, result: 'a different result' }));
    expect(e.code).toBe('CONFLICT');
    expect(e.message).toMatch(/result_ready: it already has a result, and a second completion does not replace it/);
    expect((await bench.call(alice, 'handoff_get', { handoffId: id })).handoff.result?.text).toBe('done: notes in NOTES.md');
    expect((await refused(db(), () => bench.call(alice, 'handoff_cancel', { handoffId: id }))).message).toMatch(/result_ready: its result is ready: approve or reject it instead/);
    expect((await refused(db(), () => bench.call(bob, 'handoff_accept', { handoffId: id }))).message).toMatch(/result_ready/);
  });

  it('from approved, rejected and cancelled', async () => {
    const approved = await toResultReady();
    await bench.call(bench.op, 'handoff_approve', { handoffId: approved });
    const rejected = await toResultReady();
    await bench.call(bench.op, 'handoff_reject', { handoffId: rejected, reason: 'wrong file' });
    const cancelled = await created();
    const c = (await bench.call(alice, 'handoff_cancel', { handoffId: cancelled, reason: 'not needed' })).handoff;
    expect(c.task).toMatchObject({ status: 'cancelled', statusMessage: 'not needed' });
    for (const [id, state] of [[approved, 'approved'], [rejected, 'rejected'], [cancelled, 'cancelled']] as const) {
      for (const [caller, method, input] of [
        [bob, 'handoff_accept', { handoffId: id }],
        [bob, 'handoff_complete', { handoffId: id, result: 'again' }],
        [bench.op, 'handoff_approve', { handoffId: id }],
        [bench.op, 'handoff_reject', { handoffId: id, reason: 'r' }],
        [alice, 'handoff_cancel', { handoffId: id }],
      ] as const) {
        const e = await refused(db(), () => bench.call(caller, method, input as never));
        expect(e.code, `${method} on ${state}`).toBe('CONFLICT');
        expect(e.message, `${method} on ${state}`).toContain(state);
      }
    }
  });

  it('approval without the approve capability is refused', async () => {
    const id = await toResultReady();
    const e = await refused(db(), () => bench.call(alice, 'handoff_approve', { handoffId: id }));
    expect(e.code).toBe('FORBIDDEN');
    expect(e.message).toMatch(/needs the "approve" capability/);
    expect((await refused(db(), () => bench.call(bob, 'handoff_reject', { handoffId: id, reason: 'no' }))).code).toBe('FORBIDDEN');
  });
});

describe('visibility', () => {
  it('unknown and not-visible ids give the same NOT_FOUND; approvers see everything', async () => {
    const id = await created();
    const hidden = await refused(db(), () => bench.call(carol, 'handoff_get', { handoffId: id }));
    const unknown = await refused(db(), () => bench.call(carol, 'handoff_get', { handoffId: 'h_nope' }));
    expect(hidden.code).toBe('NOT_FOUND');
    expect(hidden.message.replace(id, 'ID')).toBe(unknown.message.replace('h_nope', 'ID'));
    for (const method of ['handoff_accept', 'handoff_cancel', 'handoff_events'] as const) {
      expect((await refused(db(), () => bench.call(carol, method, { handoffId: id }))).code, method).toBe('NOT_FOUND');
    }
    expect((await bench.call(bench.op, 'handoff_get', { handoffId: id })).handoff.id).toBe(id);
    expect((await bench.call(carol, 'handoff_list', {})).handoffs).toEqual([]);
    expect((await bench.call(bob, 'handoff_list', {})).handoffs.map((h) => h.id)).toEqual([id]);
    expect((await bench.call(bench.op, 'handoff_list', { status: 'open' })).handoffs.map((h) => h.id)).toEqual([id]);
  });

  it("workspace_history leaves out handoffs the caller has no part in; handoff_events pages by id", async () => {
    const id = await created();
    await bench.call(bob, 'handoff_accept', { handoffId: id });
    const kinds = async (c: Caller) => (await bench.call(c, 'workspace_history', { limit: 200 })).events.map((e) => e.kind);
    expect(await kinds(carol)).not.toContain('handoff.created');
    expect(await kinds(bob)).toEqual(expect.arrayContaining(['handoff.created', 'handoff.accepted']));
    expect(await kinds(bench.op)).toEqual(expect.arrayContaining(['handoff.created', 'handoff.accepted']));
    const first = await bench.call(alice, 'handoff_events', { handoffId: id, limit: 1 });
    expect(first.events.map((e) => e.kind)).toEqual(['handoff.created']);
    expect(first.more).toBe(true);
    const second = await bench.call(alice, 'handoff_events', { handoffId: id, cursor: first.nextCursor, limit: 1 });
    expect(second.events.map((e) => e.kind)).toEqual(['handoff.accepted']);
    expect(second.more).toBe(false);
  });
});

describe('idempotency and limits', () => {
  it('the same participant and idempotency_key return the original handoff and task, writing nothing', async () => {
    const first = await bench.call(alice, 'handoff_create', { summary: 'once', to: 'bob', idempotency_key: 'k1' });
    const before = snapshot(db());
    const again = await bench.call(alice, 'handoff_create', { summary: 'once', to: 'bob', idempotency_key: 'k1' });
    expect(again.created).toBe(false);
    expect(again.handoff.id).toBe(first.handoff.id);
    expect(again.handoff.taskId).toBe(first.handoff.taskId);
    expect(snapshot(db())).toEqual(before);
    // the key belongs to its participant: another one using it makes its own handoff
    const other = await bench.call(carol, 'handoff_create', { summary: 'once', to: 'bob', idempotency_key: 'k1' });
    expect(other.created).toBe(true);
    expect(other.handoff.id).not.toBe(first.handoff.id);
  });

  it('the 33rd active task is refused; a finished one frees its place', async () => {
    const ids: string[] = [];
    // two agents at their share of the room's cap fill it (one agent alone stops at its share)
    const creator = (i: number) => (i < LIMITS.maxActiveTasksPerAgent ? alice : carol);
    for (let i = 0; i < LIMITS.maxActiveTasks; i++) {
      ids.push((await bench.call(creator(i), 'handoff_create', { summary: `job ${i}`, idempotency_key: `job-${i}` })).handoff.id);
    }
    const before = counts(db());
    const e = await refused(db(), () => bench.call(bob, 'handoff_create', { summary: 'one too many' }));
    expect(e.code).toBe('LIMIT_EXCEEDED');
    expect(e.message).toMatch(/32 tasks working or waiting for input \(at most 32\)/);
    expect(counts(db())).toEqual(before);
    // a repeat of an earlier create still answers at the cap (it writes nothing)
    const repeat = await bench.call(alice, 'handoff_create', { summary: 'job 5', idempotency_key: 'job-5' });
    expect(repeat).toMatchObject({ created: false, handoff: { id: ids[5] } });
    expect(counts(db())).toEqual(before);
    await bench.call(alice, 'handoff_cancel', { handoffId: ids[0] as string });
    expect((await bench.call(alice, 'handoff_create', { summary: 'now it fits' })).created).toBe(true);
  });

  it('summary, constraints and result limits, each refused with nothing written', async () => {
    const summary = await refused(db(), () => bench.call(alice, 'handoff_create', { summary: 'x'.repeat(2001) }));
    expect(summary.code).toBe('INVALID_INPUT');
    expect(summary.message).toMatch(/summary: a summary is at most 2000 characters/);
    expect((await bench.call(alice, 'handoff_create', { summary: 'x'.repeat(2000), idempotency_key: 'max' })).created).toBe(true);
    const constraints = await refused(db(), () => bench.call(alice, 'handoff_create', { summary: 's', constraints: 'c'.repeat(8001) }));
    expect(constraints.message).toMatch(/constraints are at most 8000 characters/);
    const tooMany = await refused(db(), () =>
      bench.call(alice, 'handoff_create', { summary: 's', artifacts: Array.from({ length: 33 }, (_, i) => ({ uri: `file:///a/${i}` })) }),
    );
    expect(tooMany.message).toMatch(/at most 32 artifact references/);

    const id = await created();
    await bench.call(bob, 'handoff_accept', { handoffId: id });
    const big = await refused(db(), () => bench.call(bob, 'handoff_complete', { handoffId: id, result: 'r'.repeat(256 * 1024 + 1) }));
    expect(big.code).toBe('INVALID_INPUT');
    expect(big.message).toMatch(/a result is at most 262144 bytes/);
    // bytes, not characters: 87,382 three-byte characters are 262,146 bytes
    const wide = await refused(db(), () => bench.call(bob, 'handoff_complete', { handoffId: id, result: '€'.repeat(87_382) }));
    expect(wide.message).toMatch(/bytes of UTF-8/);
    const exact = await bench.call(bob, 'handoff_complete', { handoffId: id, result: 'r'.repeat(256 * 1024) });
    expect(exact.handoff.result?.text.length).toBe(256 * 1024);
  });
});

describe('the event ring and the live bus', () => {
  it('keeps exactly the newest 2,000 events; the handoff outlives its oldest events', async () => {
    const id = await created();
    for (let i = 0; i < 2100; i++) {
      bench.engine.ctx.commit(() => ({ value: undefined, events: [{ kind: 'test.tick', actor: null, subject: null, data: { i } }] }));
    }
    const ids = db().prepare('SELECT id FROM events ORDER BY id').pluck().all() as number[];
    expect(ids).toHaveLength(2000);
    const max = ids.at(-1) as number;
    expect(ids[0]).toBe(max - 1999);
    expect(db().prepare('SELECT data FROM events WHERE id = ?').pluck().get(max)).toBe('{"i":2099}');
    // the created event is gone; the handoff and its task are not, and a reader can tell it missed events
    const page = await bench.call(alice, 'handoff_events', { handoffId: id });
    expect(page.events).toEqual([]);
    expect(page.oldestRetainedId).toBe(max - 1999);
    expect((await bench.call(alice, 'handoff_get', { handoffId: id })).handoff.task?.status).toBe('working');
  });

  it('publishes after the commit, and publishes nothing for a refused call', async () => {
    const seen: { event: RoomEvent; committed: boolean }[] = [];
    const off = bench.engine.bus.subscribe((event) => {
      const row = db().prepare('SELECT id FROM events WHERE id = ?').get(event.id);
      seen.push({ event, committed: row !== undefined && !db().inTransaction });
    });
    const id = await created();
    await refused(db(), () => bench.call(bob, 'handoff_complete', { handoffId: id, result: 'too early' }));
    await new Promise((r) => setTimeout(r, 20));
    off();
    expect(seen.map((s) => s.event.kind)).toEqual(['handoff.created']);
    expect(seen[0]?.committed).toBe(true);
  });
});
