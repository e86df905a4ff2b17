import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../src-main/engine/process/process-tree';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, markedSleep, waitForProcessWith, type TestHome } from '../helpers/env';
import { legacyTaskSession, modernTaskSession } from '../helpers/task-clients';

let home: TestHome;
let running: RunningRoom;
let token: string;

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
  token = (await running.engine.call(running.engine.operator(), 'participant_add', { name: 'ci-agent', capabilities: ['read', 'write'] })).token;
});
afterAll(async () => {
  await running.close();
  home.cleanup();
});

const graph = (stages: Record<string, string | string[]>[]) => ({ name: 'via-tasks', stages });

describe.each([
  ['2025-11-25', legacyTaskSession],
  ['2026-07-28', modernTaskSession],
] as const)('tasks_run as an MCP task on %s', (_era, open) => {
  it('completes, with the graph summary as its result', async () => {
    const { session, close } = await open(running.mcpUrl, token);
    try {
      const ex = await session.callTool('tasks_run', graph([{ id: 'a', command: 'echo a' }, { id: 'b', command: 'echo b', dependsOn: ['a'] }]), { task: { preference: 'require' } });
      expect(ex.kind).toBe('task');
      const { outcome } = await ex.settle();
      expect(outcome.status).toBe('completed');
      expect(JSON.stringify(resultFromTaskOutcome(outcome))).toContain('completed');
    } finally {
      await close();
    }
  });

  it('a failing stage makes the task failed', async () => {
    const { session, close } = await open(running.mcpUrl, token);
    try {
      const ex = await session.callTool('tasks_run', graph([{ id: 'boom', command: 'exit 3' }]), { task: { preference: 'require' } });
      expect((await ex.settle()).outcome.status).toBe('failed');
    } finally {
      await close();
    }
  });

  it('tasks/cancel ends the running stage tree and the task reads cancelled', async () => {
    const marker = markedSleep();
    const { session, close } = await open(running.mcpUrl, token);
    try {
      const ex = await session.callTool('tasks_run', graph([{ id: 'slow', command: `exec sleep ${marker}` }]), { task: { preference: 'require' } });
      if (ex.kind !== 'task') throw new Error('expected a task');
      // an agent's stage runs in the sandbox's pid namespace: found by its argument, not by its $$
      const pid = await waitForProcessWith(marker);
      expect(isAlive(pid)).toBe(true);
      await ex.cancel();
      expect((await ex.settle()).outcome.status).toBe('cancelled');
      expect(isAlive(pid)).toBe(false);
    } finally {
      await close();
    }
  });
});
