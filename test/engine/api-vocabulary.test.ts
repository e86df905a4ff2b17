import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Caller } from '../../src-main/common/dto';
import { RoomError } from '../../src-main/common/errors';
import { Engine } from '../../src-main/engine/engine';
import { randomIds, type IdSource } from '../../src-main/engine/core/ids';
import { Room } from '../../src-main/engine/room/room';
import { makeHome, type TestHome } from '../helpers/env';

/** One paging shape for every list and feed, the idempotencyKey alias, prefixed ids, and union errors that say why. */

let home: TestHome | undefined;
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.close();
  home?.cleanup();
  engine = undefined;
  home = undefined;
});

async function open(ids?: IdSource): Promise<{ engine: Engine; op: Caller }> {
  home = makeHome();
  engine = await Engine.start(Room.open({ paths: home.paths }), {}, ids ? { ids } : {});
  return { engine, op: engine.operator() };
}

async function refusal(fn: () => Promise<unknown>): Promise<RoomError> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof RoomError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** Walks a list page by page: every item once, in the order one big read gives, and the walk ends. */
async function walk<T>(read: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await read(cursor);
    all.push(...page.items);
    if (page.nextCursor === null) return all;
    cursor = page.nextCursor;
  }
  throw new Error('the walk never ended');
}

describe('one paging shape', () => {
  it('handoff_list, tasks_list and audit_list page to the end without duplicates or gaps', async () => {
    const { engine, op } = await open();
    for (let i = 0; i < 13; i++) await engine.call(op, 'handoff_create', { summary: `job ${i}` });
    const whole = (await engine.call(op, 'handoff_list', { limit: 200 })).handoffs.map((h) => h.id);
    expect(whole).toHaveLength(13);
    const paged = await walk(async (cursor) => {
      const p = await engine.call(op, 'handoff_list', { limit: 4, ...(cursor ? { cursor } : {}) });
      return { items: p.handoffs.map((h) => h.id), nextCursor: p.nextCursor };
    });
    expect(paged).toEqual(whole);
    // the same with a status filter, whose cursor is bound to it
    const open_ = await walk(async (cursor) => {
      const p = await engine.call(op, 'handoff_list', { status: 'open', limit: 5, ...(cursor ? { cursor } : {}) });
      return { items: p.handoffs.map((h) => h.id), nextCursor: p.nextCursor };
    });
    expect(open_).toEqual(whole);

    for (let i = 0; i < 7; i++) await engine.call(op, 'tasks_run', { name: `g${i}`, stages: [{ id: 's', command: 'true' }] });
    const graphs = (await engine.call(op, 'tasks_list', { limit: 100 })).graphs.map((g) => g.graphId);
    expect(graphs).toHaveLength(7);
    const pagedGraphs = await walk(async (cursor) => {
      const p = await engine.call(op, 'tasks_list', { limit: 3, ...(cursor ? { cursor } : {}) });
      return { items: p.graphs.map((g) => g.graphId), nextCursor: p.nextCursor };
    });
    expect(pagedGraphs).toEqual(graphs);

    const entries = await walk(async (cursor) => {
      const p = await engine.call(op, 'audit_list', { limit: 6, ...(cursor ? { cursor } : {}) });
      return { items: p.entries.map((e) => e.id), nextCursor: p.nextCursor };
    });
    expect(new Set(entries).size).toBe(entries.length);
    expect(entries).toEqual([...entries].sort((a, b) => b - a));
    expect(entries.length).toBeGreaterThan(20);
  });

  it('handoff_events and workspace_history read on from nextCursor: each event once, oldest first', async () => {
    const { engine, op } = await open();
    const { handoff } = await engine.call(op, 'handoff_create', { summary: 'steps' });
    await engine.call(op, 'handoff_cancel', { handoffId: handoff.id, reason: 'changed my mind' });
    for (let i = 0; i < 5; i++) await engine.call(op, 'handoff_create', { summary: `more ${i}` });
    for (const read of [
      (cursor?: string) => engine.call(op, 'workspace_history', { limit: 2, ...(cursor ? { cursor } : {}) }),
      (cursor?: string) => engine.call(op, 'handoff_events', { handoffId: handoff.id, limit: 1, ...(cursor ? { cursor } : {}) }),
    ]) {
      const ids: number[] = [];
      let page = await read();
      ids.push(...page.events.map((e) => e.id));
      for (let i = 0; i < 100 && page.more; i++) {
        page = await read(page.nextCursor);
        ids.push(...page.events.map((e) => e.id));
      }
      expect(ids.length).toBeGreaterThanOrEqual(2);
      expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
      // at the end, the cursor stays valid and answers nothing new until something happens
      const after = await read(page.nextCursor);
      expect(after.events).toEqual([]);
      expect(after.more).toBe(false);
    }
  });

  it('a cursor that is not one, or from another list or feed, is refused saying what to do', async () => {
    const { engine, op } = await open();
    for (let i = 0; i < 3; i++) await engine.call(op, 'handoff_create', { summary: `x${i}` });
    const bad = await refusal(() => engine.call(op, 'handoff_list', { cursor: 'not-a-cursor' }));
    expect(bad.code).toBe('INVALID_INPUT');
    expect(bad.message).toMatch(/pass the nextCursor of the previous answer unchanged, or omit cursor to start from the newest handoff/);
    const listCursor = (await engine.call(op, 'handoff_list', { limit: 1 })).nextCursor as string;
    const foreign = await refusal(() => engine.call(op, 'tasks_list', { cursor: listCursor }));
    expect(foreign.message).toMatch(/cursor belongs to another kind of read \(handoffs\), not graphs/);
    const filtered = await refusal(() => engine.call(op, 'handoff_list', { status: 'cancelled', cursor: listCursor }));
    expect(filtered.message).toMatch(/given out for another/);
    const [a, b] = (await engine.call(op, 'handoff_list', {})).handoffs;
    const ofA = (await engine.call(op, 'handoff_events', { handoffId: (a as { id: string }).id })).nextCursor;
    const crossed = await refusal(() => engine.call(op, 'handoff_events', { handoffId: (b as { id: string }).id, cursor: ofA }));
    expect(crossed.message).toMatch(/given out for another handoff/);
  });
});

describe('idempotencyKey beside idempotency_key', () => {
  it('either spelling is the same key; both given and different is refused', async () => {
    const { engine, op } = await open();
    const first = await engine.call(op, 'handoff_create', { summary: 'once', idempotencyKey: 'k-1' });
    expect(first.created).toBe(true);
    const again = await engine.call(op, 'handoff_create', { summary: 'once', idempotency_key: 'k-1' });
    expect(again).toMatchObject({ created: false, handoff: { id: first.handoff.id } });
    const both = await engine.call(op, 'handoff_create', { summary: 'once', idempotency_key: 'k-1', idempotencyKey: 'k-1' });
    expect(both.handoff.id).toBe(first.handoff.id);
    const differ = await refusal(() => engine.call(op, 'handoff_create', { summary: 'once', idempotency_key: 'k-1', idempotencyKey: 'k-2' }));
    expect(differ.code).toBe('INVALID_INPUT');
    expect(differ.message).toMatch(/idempotency_key and idempotencyKey are two spellings of one key and differ here: send only one of them/);
    expect((await engine.call(op, 'handoff_list', {})).handoffs).toHaveLength(1);
  });
});

describe('ids', () => {
  it('new ids carry their kind', async () => {
    const { engine, op } = await open();
    const { handoff } = await engine.call(op, 'handoff_create', { summary: 'kinds' });
    expect(handoff.id).toMatch(/^hf_[A-Za-z0-9_-]{16}$/);
    expect(handoff.taskId).toMatch(/^tk_[A-Za-z0-9_-]{16}$/);
    const run = await engine.call(op, 'tasks_run', { stages: [{ id: 's', command: 'true' }] });
    expect(run.graphId).toMatch(/^gr_[A-Za-z0-9_-]{22}$/);
    const { shell } = await engine.call(op, 'shell_open', { shell: '/bin/sh', args: ['-c', 'exit 0'] });
    expect(shell.id).toMatch(/^sh_[0-9a-f]{16}$/);
  });

  it('ids in the formats rooms made before stay readable through every tool that takes them', async () => {
    const b64 = (n: number) => randomBytes(n).toString('base64url');
    const before: IdSource = {
      ...randomIds,
      taskId: () => `t-${b64(16)}`,
      handoffId: () => `h_${b64(12)}`,
      handoffTaskId: () => `t_${b64(12)}`,
      graphId: () => randomUUID(),
    };
    const { engine, op } = await open(before);
    const { handoff } = await engine.call(op, 'handoff_create', { summary: 'old' });
    expect(handoff.id).toMatch(/^h_/);
    expect((await engine.call(op, 'handoff_get', { handoffId: handoff.id })).handoff.id).toBe(handoff.id);
    expect((await engine.call(op, 'task_get', { taskId: handoff.taskId })).task.taskId).toBe(handoff.taskId);
    const run = await engine.call(op, 'tasks_run', { stages: [{ id: 's', command: 'true' }] });
    expect(run.graphId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await engine.call(op, 'tasks_graph', { graphId: run.graphId })).graph.graphId).toBe(run.graphId);
    const wrong = await refusal(() => engine.call(op, 'tasks_graph', { graphId: 'nope' }));
    expect(wrong.message).toMatch(/a graph id is the graphId tasks_run returned \(gr_…; tasks_list shows the graphs you may see\)/);
  });
});

describe('a union that fails says which form and why', () => {
  it('names each accepted form and what does not fit it, never a bare "Invalid input"', async () => {
    const { engine, op } = await open();
    const key = await refusal(() => engine.call(op, 'shell_io', { shellId: 'sh_x', input: [{ key: 5 }] } as never));
    expect(key.message).toMatch(/input\.0: matches none of the 2 accepted forms \(as \{text\}: .* \| as \{key\}: input\.0\.key: expected string, received number\)/);
    const command = await refusal(() => engine.call(op, 'tasks_run', { stages: [{ id: 'a', command: 5 }] } as never));
    expect(command.message).toMatch(/stages\.0\.command: matches none of the 2 accepted forms \(as a string: .* \| as an array: .*\)/);
    expect(`${key.message} ${command.message}`).not.toMatch(/Invalid input/);
  });
});
