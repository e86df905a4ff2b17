import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Caller } from '../../src-main/common/dto';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, type TestHome } from '../helpers/env';
import { legacyTaskSession, modernTaskSession } from '../helpers/task-clients';

let home: TestHome;
let running: RunningRoom;
let ownerToken: string;
let worker: Caller;

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
  const op = running.engine.operator();
  ownerToken = (await running.engine.call(op, 'participant_add', { name: 'planner', capabilities: ['read', 'write'] })).token;
  const w = await running.engine.call(op, 'participant_add', { name: 'builder', capabilities: ['read', 'write'] });
  const caller = running.engine.authenticate(w.token);
  if (!caller) throw new Error('no caller');
  worker = caller;
});
afterAll(async () => {
  await running.close();
  home.cleanup();
});

const textOf = (r: unknown) => JSON.stringify((r as { content?: unknown }).content ?? r);

/** The newest audit rows of planner's calls of `method` (what the person sees in Activity beside an agent). */
async function audited(method: string, target: string): Promise<{ outcome: string }[]> {
  const { entries } = await running.engine.call(running.engine.operator(), 'audit_list', { participant: 'planner', limit: 200 });
  return (entries as { method: string; target: string | null; outcome: string }[]).filter((e) => e.method === method && e.target === target);
}

/** The worker's side, through the engine (the same methods its MCP tools call). */
async function work(taskId: string, ask: boolean) {
  const engine = running.engine;
  const handoff = (await engine.call(running.engine.operator(), 'handoff_list', {})).handoffs.find((h) => h.taskId === taskId);
  if (!handoff) throw new Error('handoff not found');
  await engine.call(worker, 'handoff_accept', { handoffId: handoff.id });
  if (ask) await engine.call(worker, 'handoff_request_input', { handoffId: handoff.id, requests: { colour: { message: 'Which colour?' } } });
  return handoff.id;
}

describe('handoff_create as a task', () => {
  it('2026: the owner answers the input request through tasks/update and gets the result', { timeout: 60_000 }, async () => {
    const inputs: string[] = [];
    const { session, close } = await modernTaskSession(running.mcpUrl, ownerToken, async (request) => {
      inputs.push(request.kind);
      return { action: 'accept', content: { answer: 'teal' } } as never;
    });
    try {
      const ex = await session.callTool('handoff_create', { summary: 'paint the shed', to: 'builder' });
      if (ex.kind !== 'task') throw new Error('expected a task');
      const handoffId = await work(ex.handle.taskId, true);
      const settled = ex.settle();
      // the worker finishes once the answer arrived
      await running.engine.tasks.waitFor(ex.handle.taskId, (t) => t.status === 'working' && t.inputRequests === null);
      const answered = await running.engine.call(worker, 'handoff_get', { handoffId: handoffId });
      expect(answered.handoff.inputAnswers.colour?.content).toEqual({ answer: 'teal' });
      await running.engine.call(worker, 'handoff_complete', { handoffId: handoffId, result: 'painted it teal' });
      const { outcome } = await settled;
      expect(outcome.status).toBe('completed');
      expect(textOf(resultFromTaskOutcome(outcome))).toContain('painted it teal');
      expect(inputs).toEqual(['elicitation']);
      // the answer, sent with tasks/update, is in the audit log like every other call
      expect(await audited('task_answer', ex.handle.taskId)).toEqual([expect.objectContaining({ outcome: 'ok' })]);
    } finally {
      await close();
    }
  });

  it('2025: tasks/result carries the input request as an elicitation, then the result', async () => {
    const { client, session, close } = await legacyTaskSession(running.mcpUrl, ownerToken);
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { answer: 'ochre' } }));
    try {
      const ex = await session.callTool('handoff_create', { summary: 'paint the fence', to: 'builder' }, { task: { preference: 'require' } });
      if (ex.kind !== 'task') throw new Error('expected a task');
      const handoffId = await work(ex.handle.taskId, true);
      const result = client.request({ method: 'tasks/result', params: { taskId: ex.handle.taskId } }, z.looseObject({}));
      await running.engine.tasks.waitFor(ex.handle.taskId, (t) => t.status === 'working' && t.inputRequests === null);
      await running.engine.call(worker, 'handoff_complete', { handoffId: handoffId, result: 'fence is ochre' });
      expect(textOf(await result)).toContain('fence is ochre');
    } finally {
      await close();
    }
  });

  it.each([
    ['2025-11-25', legacyTaskSession],
    ['2026-07-28', modernTaskSession],
  ] as const)('%s: tasks/cancel by the owner cancels the handoff and its task', async (_era, open) => {
    const { session, close } = await open(running.mcpUrl, ownerToken);
    try {
      const ex = await session.callTool('handoff_create', { summary: `never mind ${_era}`, to: 'builder' }, { task: { preference: 'require' } });
      if (ex.kind !== 'task') throw new Error('expected a task');
      await ex.cancel();
      expect((await ex.settle()).outcome.status).toBe('cancelled');
      const handoff = (await running.engine.call(running.engine.operator(), 'handoff_list', {})).handoffs.find((h) => h.taskId === ex.handle.taskId);
      expect(handoff?.status).toBe('cancelled');
      expect(await audited('task_cancel', ex.handle.taskId)).toEqual([expect.objectContaining({ outcome: 'ok' })]);
    } finally {
      await close();
    }
  });

  it('without the extension, handoff_create answers the handoff itself', async () => {
    const { client, close } = await modernTaskSession(running.mcpUrl, ownerToken);
    try {
      const r = (await client.callTool({ name: 'handoff_create', arguments: { summary: 'plain call', to: 'builder' } })) as { structuredContent: { handoff: { status: string } } };
      expect(r.structuredContent.handoff.status).toBe('open');
    } finally {
      await close();
    }
  });
});

describe('a handoff task that outlives its TTL', () => {
  it.each([
    ['2025-11-25', legacyTaskSession],
    ['2026-07-28', modernTaskSession],
  ] as const)('%s: reads failed ("task expired") to the ext-tasks client after the room process restarts a day later', async (_era, open) => {
    const h = makeHome();
    let now = Date.now();
    const clock = () => new Date(now);
    let first: RunningRoom | undefined = await startRunner({ port: 0, paths: h.paths, clock });
    try {
      const owner = (await first.engine.call(first.engine.operator(), 'participant_add', { name: 'ttl-owner', capabilities: ['read', 'write'] })).token;
      const a = await open(first.mcpUrl, owner);
      const ex = await a.session.callTool('handoff_create', { summary: 'will expire' }, { task: { preference: 'require' } });
      if (ex.kind !== 'task') throw new Error('expected a task');
      await a.close();
      await first.close();
      first = undefined;
      now += 25 * 60 * 60 * 1000; // a day and an hour later
      const second = await startRunner({ port: 0, paths: h.paths, clock });
      try {
        const b = await open(second.mcpUrl, owner);
        try {
          const snapshot = await b.session.task(ex.handle.taskId).snapshot();
          expect(snapshot.status).toBe('failed');
          expect(second.engine.room.tasks.get(ex.handle.taskId)?.statusMessage).toMatch(/task expired/);
        } finally {
          await b.close();
        }
      } finally {
        await second.close();
      }
    } finally {
      await first?.close();
      h.cleanup();
    }
  });
});
