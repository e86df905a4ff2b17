import { testFixtureTools } from '../../src-main/testing/test-fixtures';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunningRoom } from '../../src-main/server/runner';
import { legacyTaskSession, modernTaskSession } from '../helpers/task-clients';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let running: RunningRoom;
let token: string;

let runner: TestRunner;
beforeAll(async () => {
  runner = await startTestRunner({ extraTools: testFixtureTools });
  ({ running, token } = runner);
});
afterAll(() => runner?.close());

const textOf = (r: unknown) => JSON.stringify((r as { content?: unknown }).content ?? r);

describe.each([
  ['2025-11-25', legacyTaskSession],
  ['2026-07-28', modernTaskSession],
] as const)('tasks on %s with the ext-tasks client', (_era, open) => {
  it('runs a task to completion and returns its result', async () => {
    const { session, close } = await open(running.mcpUrl, token);
    try {
      const ex = await session.callTool('slow_compute', { seconds: 0.2, label: 'done-ok' }, { task: { preference: 'require' } });
      expect(ex.kind).toBe('task');
      const { outcome } = await ex.settle();
      expect(outcome.status).toBe('completed');
      expect(textOf(resultFromTaskOutcome(outcome))).toContain('computed done-ok');
    } finally {
      await close();
    }
  });

  it('a JSON-RPC failure ends the task failed', async () => {
    const { session, close } = await open(running.mcpUrl, token);
    try {
      const ex = await session.callTool('protocol_error_job', {}, { task: { preference: 'require' } });
      const { outcome } = await ex.settle();
      expect(outcome.status).toBe('failed');
    } finally {
      await close();
    }
  });

  it('cancellation ends the task cancelled and it stays so', async () => {
    const { session, close } = await open(running.mcpUrl, token);
    try {
      const ex = await session.callTool('slow_compute', { seconds: 20 }, { task: { preference: 'require' } });
      if (ex.kind !== 'task') throw new Error('expected a task');
      await ex.cancel();
      const { outcome } = await ex.settle();
      expect(outcome.status).toBe('cancelled');
      expect(running.engine.room.tasks.get(ex.handle.taskId)?.status).toBe('cancelled');
    } finally {
      await close();
    }
  });
});

describe('2026-07-28 input through tasks/update', () => {
  it('an input request is answered through tasks/update and the task completes with it', async () => {
    const seen: string[] = [];
    const { session, close } = await modernTaskSession(running.mcpUrl, token, async (request) => {
      seen.push(request.kind);
      return { action: 'accept', content: { confirm: true } } as never;
    });
    try {
      const ex = await session.callTool('confirm_delete', { filename: 'notes.txt' }, { task: { preference: 'require' } });
      const { outcome } = await ex.settle();
      expect(outcome.status).toBe('completed');
      expect(textOf(resultFromTaskOutcome(outcome))).toContain('deleted notes.txt');
      expect(seen).toContain('elicitation');
    } finally {
      await close();
    }
  });
});

describe('2025-11-25 input through tasks/result', () => {
  it('tasks/result sends the input request as an elicitation tagged with the task, and returns the result once answered', async () => {
    const { client, session, close } = await legacyTaskSession(running.mcpUrl, token);
    const elicited: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      elicited.push(request.params);
      return { action: 'accept', content: { confirm: true } };
    });
    try {
      const ex = await session.callTool('confirm_delete', { filename: 'plan.md' }, { task: { preference: 'require' } });
      if (ex.kind !== 'task') throw new Error('expected a task');
      const result = await client.request({ method: 'tasks/result', params: { taskId: ex.handle.taskId } }, z.looseObject({}));
      expect(textOf(result)).toContain('deleted plan.md');
      expect((result._meta as Record<string, unknown>)['io.modelcontextprotocol/related-task']).toEqual({ taskId: ex.handle.taskId });
      expect(elicited).toHaveLength(1);
      expect(JSON.stringify(elicited[0])).toContain(ex.handle.taskId);
    } finally {
      await close();
    }
  });
});
