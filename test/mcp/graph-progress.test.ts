import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema, ResourceUpdatedNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let running: RunningRoom;
let token: string;
let runner: TestRunner;
beforeAll(async () => {
  runner = await startTestRunner();
  ({ running, token } = runner);
});
afterAll(() => runner?.close());

/** A gate file a stage waits for, so the test decides when each stage ends (no timing). */
function gate(name: string): { path: string; wait: string; open(): void } {
  const file = path.join(path.dirname(running.engine.room.location.markdownPath), `${name}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  return { path: file, wait: `while [ ! -e '${file}' ]; do sleep 0.05; done`, open: () => fs.writeFileSync(file, '') };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a running graph task reports its progress (seed 004)', () => {
  it('2025-11-25: notifications/progress as stages end (done/total), its task names its task-log:// URI, which lists each stage and can be subscribed to', async () => {
    const [a, b] = [gate('a'), gate('b')];
    // the official v1 SDK client keeps a task-augmented request's progress handler for the task's lifetime
    const client = new Client({ name: 'progress-2025', version: '1' });
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const progress: Progress[] = [];
    try {
      const created = await client.request(
        {
          method: 'tools/call',
          params: {
            name: 'tasks_run',
            arguments: { stages: [{ id: 'first', command: a.wait, timeoutMs: 60_000 }, { id: 'second', command: b.wait, dependsOn: ['first'], timeoutMs: 60_000 }] },
            task: {},
          },
        },
        CreateTaskResultSchema,
        { onprogress: (p) => void progress.push(p) },
      );
      const taskId = created.task.taskId;
      const logUri = created._meta?.['commonroom/taskLog'];
      expect(logUri).toBe(`task-log://${encodeURIComponent(taskId)}`);
      await client.subscribeResource({ uri: String(logUri) });

      a.open();
      await until(() => progress.some((p) => p.progress === 1), 'progress after the first stage');
      expect(progress.find((p) => p.progress === 1)).toMatchObject({ progress: 1, total: 2 });
      expect(progress.find((p) => p.progress === 1)?.message).toMatch(/^1\/2 stages done: /);
      await until(() => updated.includes(String(logUri)), "the graph task-log's update when a stage moved");

      b.open();
      await until(() => progress.some((p) => p.progress === 2), 'progress after the second stage');
      expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((x, y) => x - y)); // only grows
      expect(new Set(progress.map((p) => p.progress)).size).toBe(progress.length);
      expect(progress.at(-1)).toMatchObject({ progress: 2, total: 2 });

      // the graph's log: its events, each about a stage linking that stage's own log (its output)
      await running.engine.tasks.waitFor(taskId, (t) => t.status === 'completed');
      const read = await client.readResource({ uri: String(logUri) });
      const page = JSON.parse((read.contents[0] as { text: string }).text) as { records: { kind: string; log?: string; data: { stageId?: string } }[] };
      const stageLinks = new Set(page.records.filter((r) => r.kind === 'graph.stage').map((r) => r.log));
      expect(stageLinks).toEqual(new Set(['first', 'second'].map((s) => `task-log://${encodeURIComponent(`${taskId}:${s}`)}`)));
      const stageLog = await client.readResource({ uri: `task-log://${encodeURIComponent(`${taskId}:first`)}` });
      expect(JSON.parse((stageLog.contents[0] as { text: string }).text)).toHaveProperty('records');
    } finally {
      a.open();
      b.open();
      await client.close();
    }
  });

  it('2026-07-28: the task (tasks/get) carries its task-log:// URI and a statusMessage with done/total', async () => {
    const a = gate('modern');
    const run = await running.engine.call(running.engine.operator(), 'tasks_run', { stages: [{ id: 'only', command: a.wait, timeoutMs: 60_000 }] });
    const get = async () => {
      const res = await fetch(running.mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tasks/get',
          'mcp-name': run.taskId,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tasks/get',
          params: {
            taskId: run.taskId,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
            },
          },
        }),
      });
      return ((await res.json()) as { result: { status: string; statusMessage?: string; _meta?: Record<string, unknown> } }).result;
    };
    try {
      const working = await get();
      expect(working._meta?.['commonroom/taskLog']).toBe(`task-log://${encodeURIComponent(run.taskId)}`);
      // no progress notifications for tasks on this era: the statusMessage says done/total
      await expect.poll(async () => (await get()).statusMessage, { timeout: 20_000 }).toMatch(/^0\/1 stages done: 1 running \(only\)/);
      a.open();
      await running.engine.tasks.waitFor(run.taskId, (t) => t.status === 'completed');
      const done = await get();
      expect(done.status).toBe('completed');
    } finally {
      a.open();
    }
  });
});
