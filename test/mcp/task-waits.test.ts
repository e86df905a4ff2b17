import { testFixtureTools } from '../../src-main/testing/test-fixtures';
import fs from 'node:fs';
import path from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunningRoom } from '../../src-main/server/runner';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let running: RunningRoom;
let token: string;

let runner: TestRunner;
beforeAll(async () => {
  runner = await startTestRunner({ extraTools: testFixtureTools, limits: { maxTaskResultWaiters: 2, taskListPage: 2 } });
  ({ running, token } = runner);
});
afterAll(() => runner?.close());

const headers = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${token}`,
  ...extra,
});

/** A raw 2025 session: initialize, then requests with the session id. */
async function session() {
  const init = await fetch(running.mcpUrl, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  const sid = init.headers.get('mcp-session-id') ?? '';
  await init.text();
  const h = headers({ 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
  await fetch(running.mcpUrl, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }).then((r) => r.text());
  const post = (message: unknown) => fetch(running.mcpUrl, { method: 'POST', headers: h, body: JSON.stringify(message) });
  return { post };
}

async function longTask(post: (m: unknown) => Promise<Response>): Promise<string> {
  const r = await post({ jsonrpc: '2.0', id: 'mk', method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 20 }, task: {} } });
  const text = await r.text();
  const data = text.split('\n').find((l) => l.startsWith('data: ') && l.includes('"task"')) ?? '';
  return (JSON.parse(data.slice(6)) as { result: { task: { taskId: string } } }).result.task.taskId;
}

describe('2025 tasks/result waits', () => {
  it('are capped: past the limit the next call is refused at once, and the task is untouched', async () => {
    const { post } = await session();
    const taskId = await longTask(post);
    const waiting = [post({ jsonrpc: '2.0', id: 'w1', method: 'tasks/result', params: { taskId } }), post({ jsonrpc: '2.0', id: 'w2', method: 'tasks/result', params: { taskId } })];
    // both waits have reached the server once their event streams opened (a loaded machine may take a while)
    await Promise.all(waiting);
    await new Promise((r) => setTimeout(r, 200));
    const third = await post({ jsonrpc: '2.0', id: 'w3', method: 'tasks/result', params: { taskId } });
    const text = await third.text();
    expect(text).toContain('too many tasks/result calls waiting (2)');
    // other requests of the same session are answered while two calls wait
    const got = await post({ jsonrpc: '2.0', id: 'g', method: 'tasks/get', params: { taskId } });
    expect(await got.text()).toContain('"status":"working"');
    // and tasks/cancel for that very task is answered too; the waiters then end
    const cancelled = await post({ jsonrpc: '2.0', id: 'c', method: 'tasks/cancel', params: { taskId } });
    expect(await cancelled.text()).toContain('"status":"cancelled"');
    for (const w of await Promise.all(waiting)) expect(await w.text()).toContain('cancelled');
  });

  it('a tasks/result the client cancelled with notifications/cancelled is never answered, and its response ends at once', async () => {
    const { post } = await session();
    const taskId = await longTask(post);
    const pending = await post({ jsonrpc: '2.0', id: 'never', method: 'tasks/result', params: { taskId } });
    let ended = false;
    const body = pending.text().then((text) => ((ended = true), text));
    await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never', reason: 'changed my mind' } }).then((r) => r.text());
    // the response ends without the client dropping it (it used to stay open until then)
    for (let i = 0; i < 100 && !ended; i++) await new Promise((r) => setTimeout(r, 50));
    expect(ended).toBe(true);
    // the task then ends: an answer, if one were ever sent, would have come on that stream
    await post({ jsonrpc: '2.0', id: 'c2', method: 'tasks/cancel', params: { taskId } }).then((r) => r.text());
    expect(await body).not.toMatch(/"id":"never"/);
  });

  it("sends notifications/tasks/status for a graph task this session created when one of its stages moves", async () => {
    const dir = path.dirname(running.engine.room.location.markdownPath);
    const gate = (name: string) => path.join(dir, `${name}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    const [first, second] = [gate('first'), gate('second')];
    const waitFor = (file: string) => `while [ ! -e '${file}' ]; do sleep 0.05; done`;
    const client = new ClientV1({ name: 'stage-status-listener', version: '1' });
    const notes: { taskId?: string; status?: string; statusMessage?: string }[] = [];
    client.fallbackNotificationHandler = async (n) => {
      if (n.method === 'notifications/tasks/status') notes.push(n.params as (typeof notes)[number]);
    };
    await client.connect(new TransportV1(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      const created = await client.request(
        {
          method: 'tools/call',
          params: {
            name: 'tasks_run',
            arguments: { stages: [{ id: 'first', command: waitFor(first), timeoutMs: 60_000 }, { id: 'second', command: waitFor(second), timeoutMs: 60_000 }] },
            task: {},
          },
        },
        z.looseObject({ task: z.looseObject({ taskId: z.string() }) }),
      );
      const taskId = created.task.taskId;
      fs.writeFileSync(first, '');
      const stageNote = () => notes.find((n) => n.taskId === taskId && n.status === 'working' && /1 completed/.test(n.statusMessage ?? ''));
      for (let i = 0; i < 200 && !stageNote(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(stageNote()?.statusMessage).toMatch(/1 running \(second\)/);
      fs.writeFileSync(second, '');
      for (let i = 0; i < 200 && !notes.some((n) => n.taskId === taskId && n.status === 'completed'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(notes.map((n) => n.status)).toContain('completed');
    } finally {
      fs.writeFileSync(first, '');
      fs.writeFileSync(second, '');
      await client.close();
    }
  });

  it('sends notifications/tasks/status for a task this session created', async () => {
    const client = new ClientV1({ name: 'status-listener', version: '1' });
    const statuses: string[] = [];
    client.fallbackNotificationHandler = async (n) => {
      if (n.method === 'notifications/tasks/status') statuses.push(String((n.params as { status?: string }).status));
    };
    await client.connect(new TransportV1(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      const created = await client.request(
        { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 0.2 }, task: {} } },
        z.looseObject({ task: z.looseObject({ taskId: z.string() }) }),
      );
      expect(created.task.taskId).toBeTruthy();
      for (let i = 0; i < 100 && !statuses.includes('completed'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(statuses).toContain('completed');
    } finally {
      await client.close();
    }
  });
});

describe('2025 tasks/list and tasks/cancel', () => {
  it('pages the caller’s tasks with a cursor, refuses an ended task’s cancel with -32602, and reports each kind’s ttl', async () => {
    const { post } = await session();
    const rpc = async (id: string, method: string, params: Record<string, unknown>) => {
      const text = await (await post({ jsonrpc: '2.0', id, method, params })).text();
      const line = text.split('\n').find((l) => l.startsWith('data: ') && l.includes(`"id":"${id}"`)) ?? '';
      return JSON.parse(line.slice(6)) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
    };
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await rpc(`mk${i}`, 'tools/call', { name: 'tasks_run', arguments: { stages: [{ id: 'x', command: 'true' }] }, task: {} });
      ids.push(String((r.result?.task as { taskId: string }).taskId));
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (let page = 0; page < 20; page++) {
      pages++;
      const r = await rpc(`ls${page}`, 'tasks/list', cursor ? { cursor } : {});
      for (const t of r.result?.tasks as { taskId: string; ttl: number | null }[]) seen.push(t.taskId);
      cursor = r.result?.nextCursor as string | undefined;
      if (!cursor) break;
    }
    for (const id of ids) expect(seen).toContain(id);
    expect(pages).toBeGreaterThan(1);
    expect(new Set(seen).size).toBe(seen.length);
    expect((await rpc('bad', 'tasks/list', { cursor: 'not-a-cursor' })).error?.code).toBe(-32602);

    await running.engine.tasks.waitFor(ids[0] as string, (t) => t.status === 'completed');
    const got = await rpc('g', 'tasks/get', { taskId: ids[0] });
    expect(got.result?.ttl).toBeNull(); // graph runs are kept
    const refused = await rpc('c', 'tasks/cancel', { taskId: ids[0] });
    expect(refused.error).toMatchObject({ code: -32602, message: "Cannot cancel task: already in terminal status 'completed'" });

    const handoff = await rpc('h', 'tools/call', { name: 'handoff_create', arguments: { summary: 'ttl check' }, task: {} });
    expect((handoff.result?.task as { ttl: number }).ttl).toBe(24 * 60 * 60 * 1000);
  });
});
