import { testFixtureTools } from '../../src-main/testing/test-fixtures';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, type TestHome } from '../helpers/env';
import { startServe, stopServe } from '../helpers/serve';

let home: TestHome;
let running: RunningRoom;
let ownerToken: string;
let otherToken: string;
let taskId: string;

const envelope = (declare: boolean) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': declare ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {},
});

/** One raw 2026 request, with the standard headers (Mcp-Name = the task id, unless told otherwise). */
async function modern(token: string, method: string, params: Record<string, unknown>, options: { declare?: boolean; mcpName?: string } = {}) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  const name = options.mcpName ?? (params.taskId as string | undefined);
  if (name !== undefined) headers['mcp-name'] = name;
  const res = await fetch(running.mcpUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope(options.declare ?? true) } }),
  });
  const text = await res.text();
  const json = text.startsWith('{') ? JSON.parse(text) : JSON.parse(text.split('\n').find((l) => l.startsWith('data: '))?.slice(6) ?? '{}');
  return { status: res.status, body: json as { result?: Record<string, unknown>; error?: { code: number; message: string } } };
}

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths, extraTools: testFixtureTools });
  const op = running.engine.operator();
  ownerToken = (await running.engine.call(op, 'participant_add', { name: 'owner', capabilities: ['read', 'write'] })).token;
  otherToken = (await running.engine.call(op, 'participant_add', { name: 'other', capabilities: ['read', 'write'] })).token;
  const created = await modern(ownerToken, 'tools/call', { name: 'slow_compute', arguments: { seconds: 20 } }, { mcpName: 'slow_compute' });
  taskId = String(created.body.result?.taskId);
});
afterAll(async () => {
  await running.close();
  home.cleanup();
});

describe("another participant's task id", () => {
  it('gives exactly the same error as a made-up id on every 2026 method', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const extra = method === 'tasks/update' ? { inputResponses: { k: { action: 'accept' } } } : {};
      const theirs = await modern(otherToken, method, { taskId, ...extra });
      const madeUp = await modern(otherToken, method, { taskId: 't-made-up-id', ...extra });
      expect(theirs.body.error, method).toEqual(madeUp.body.error);
      expect(theirs.body.error).toEqual({ code: -32602, message: 'unknown task' });
    }
    // and the owner still sees it, unchanged by the attempts
    expect((await modern(ownerToken, 'tasks/get', { taskId })).body.result?.status).toBe('working');
  });

  it('gives exactly the same error as a made-up id on every 2025 method, and tasks/list shows only your own', async () => {
    const client = new Client({ name: 'other-2025', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${otherToken}` } } }));
    try {
      const errorOf = async (method: string, id: string) => {
        try {
          await client.request({ method, params: { taskId: id } }, z.looseObject({}));
        } catch (error) {
          return { code: (error as { code?: number }).code, message: (error as Error).message };
        }
        return null;
      };
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
        const theirs = await errorOf(method, taskId);
        expect(theirs, method).not.toBeNull();
        expect(theirs).toEqual(await errorOf(method, 't-made-up-id'));
      }
      const list = await client.request({ method: 'tasks/list', params: {} }, z.looseObject({ tasks: z.array(z.looseObject({ taskId: z.string() })) }));
      expect(list.tasks.map((t) => t.taskId)).not.toContain(taskId);
      const log = await client.readResource({ uri: `task-log://${taskId}` }).catch((e: Error) => e.message);
      const madeUpLog = await client.readResource({ uri: 'task-log://t-made-up-id' }).catch((e: Error) => e.message);
      expect(log).toEqual(madeUpLog);
    } finally {
      await client.close();
    }
  });
});

describe('2026 method rules', () => {
  it('tasks/* without the extension is -32021 naming it', async () => {
    const r = await modern(ownerToken, 'tasks/get', { taskId }, { declare: false });
    expect(r.body.error?.code).toBe(-32021);
    expect(JSON.stringify(r.body.error)).toContain('io.modelcontextprotocol/tasks');
  });

  it('Mcp-Name must equal the task id', async () => {
    const r = await modern(ownerToken, 'tasks/get', { taskId }, { mcpName: 'someone-else' });
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe(-32020);
  });

  it('tasks/result and tasks/list are removed on 2026 (-32601)', async () => {
    expect((await modern(ownerToken, 'tasks/result', { taskId })).body.error?.code).toBe(-32601);
    expect((await modern(ownerToken, 'tasks/list', {}, { mcpName: undefined })).body.error?.code).toBe(-32601);
  });

  it('tasks/cancel acknowledges, marks a live task cancelled first, and leaves an ended one as it was', async () => {
    const r = await modern(ownerToken, 'tasks/cancel', { taskId });
    expect(r.body.result).toMatchObject({ resultType: 'complete' });
    expect((await modern(ownerToken, 'tasks/get', { taskId })).body.result?.status).toBe('cancelled');
    const again = await modern(ownerToken, 'tasks/cancel', { taskId });
    expect(again.body.error).toBeUndefined();
    expect((await modern(ownerToken, 'tasks/get', { taskId })).body.result?.status).toBe('cancelled');
  });
});

describe('durability of tasks across sessions and restarts', () => {
  it('a task made over MCP is visible from a new session and after a restart; one running when the runner was killed reads failed', async () => {
    const serveHome = makeHome();
    try {
      let serve = await startServe(serveHome, ['--test-fixtures']);
      const call = async (method: string, params: Record<string, unknown>, mcpName?: string) => {
        const url = serve.mcpUrl;
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${serve.token}`,
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': method,
            'mcp-name': mcpName ?? String(params.taskId),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope(true) } }),
        });
        return (await res.json()) as { result?: Record<string, unknown> };
      };
      const done = await call('tools/call', { name: 'greet', arguments: {} }, 'greet');
      expect(done.result?.resultType).not.toBe('task'); // greet never runs as a task
      const graph = await call('tools/call', { name: 'tasks_run', arguments: { stages: [{ id: 'long', command: 'sleep 300' }] } }, 'tasks_run');
      const graphTask = String(graph.result?.taskId);
      const job = await call('tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }, 'slow_compute');
      const jobTask = String(job.result?.taskId);
      expect((await call('tasks/get', { taskId: graphTask })).result?.status).toBe('working');
      await stopServe(serve, 'SIGKILL');
      serve = await startServe(serveHome, ['--test-fixtures']);
      try {
        const after = await call('tasks/get', { taskId: graphTask });
        expect(after.result?.status).toBe('failed');
        // the graph's task says why, not only its stage: the runner restarted
        expect(String(after.result?.statusMessage)).toMatch(/^RUNNER_RESTARTED: /);
        expect(after.result?.error).toMatchObject({ code: -32603, data: { errorCode: 'RUNNER_RESTARTED', graphId: graphTask } });
        const status = await call('tools/call', { name: 'tasks_status', arguments: { graphId: graphTask } }, 'tasks_status');
        const graph = (status.result?.structuredContent as { graph: { state: string; error: { code: string } | null } }).graph;
        expect(graph.state).toBe('failed');
        expect(graph.error?.code).toBe('RUNNER_RESTARTED');
        expect((await call('tasks/get', { taskId: jobTask })).result?.status).toBe('failed');
      } finally {
        await stopServe(serve);
      }
    } finally {
      serveHome.cleanup();
    }
  });
});

describe('changing a task through tasks/* needs write, like the tools', () => {
  it('an approver without write can see a handoff task but not cancel it or answer its input', async () => {
    const op = running.engine.operator();
    const approver = (await running.engine.call(op, 'participant_add', { name: 'reviewer', capabilities: ['read', 'approve'] })).token;
    const created = await modern(ownerToken, 'tools/call', { name: 'handoff_create', arguments: { summary: 'needs a reviewer' } }, { mcpName: 'handoff_create' });
    const handoffTask = String(created.body.result?.taskId);
    expect((await modern(approver, 'tasks/get', { taskId: handoffTask })).body.result?.status).toBe('working');
    const cancel = await modern(approver, 'tasks/cancel', { taskId: handoffTask });
    expect(cancel.body.error?.message).toMatch(/"write" capability/);
    expect((await modern(ownerToken, 'tasks/get', { taskId: handoffTask })).body.result?.status).toBe('working');
  });
});

describe('workspace_history', () => {
  it("shows a participant its own graphs' events, not another's, and no participant changes", async () => {
    const engine = running.engine;
    const a = engine.authenticate(ownerToken);
    const b = engine.authenticate(otherToken);
    if (!a || !b) throw new Error('no callers');
    const mine = await engine.call(a, 'tasks_run', { name: 'a-secret-build', stages: [{ id: 's', command: 'true' }] });
    const theirs = await engine.call(b, 'tasks_run', { name: 'b-build', stages: [{ id: 's', command: 'true' }] });
    await engine.tasks.waitFor(mine.taskId, (t) => t.status === 'completed');
    await engine.tasks.waitFor(theirs.taskId, (t) => t.status === 'completed');
    const events: { kind: string; subject: string | null; data: unknown }[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 50; i++) {
      const page = await engine.call(b, 'workspace_history', { ...(cursor ? { cursor } : {}), limit: 200 });
      events.push(...page.events);
      cursor = page.nextCursor;
      if (!page.more) break;
    }
    const text = JSON.stringify(events);
    expect(text).toContain(theirs.graphId);
    expect(text).not.toContain(mine.graphId);
    expect(text).not.toContain('a-secret-build');
    expect(events.some((e) => e.kind.startsWith('participant.'))).toBe(false);
    const operatorView = JSON.stringify((await engine.call(engine.operator(), 'workspace_history', { limit: 200 })).events);
    expect(operatorView).toContain('participant.added');
  });
});

describe('a task handle', () => {
  it("of handoff_create names its handoff and its task-log URI in _meta; a graph run's names no handoff", async () => {
    const created = await modern(ownerToken, 'tools/call', { name: 'handoff_create', arguments: { summary: 'who am I' } }, { mcpName: 'handoff_create' });
    expect(created.body.result?.resultType).toBe('task');
    const handle = created.body.result as { taskId: string; _meta: Record<string, unknown> };
    const handoffId = handle._meta['commonroom/handoffId'] as string;
    expect(handoffId).toMatch(/^hf_/);
    const owner = running.engine.authenticate(ownerToken);
    if (!owner) throw new Error('owner token');
    expect((await running.engine.call(owner, 'handoff_get', { handoffId })).handoff.taskId).toBe(handle.taskId);
    expect(handle._meta['commonroom/taskLog']).toBe(`task-log://${encodeURIComponent(handle.taskId)}`);
    const run = await modern(ownerToken, 'tools/call', { name: 'tasks_run', arguments: { name: 'g', stages: [{ id: 'a', command: ['true'] }] } }, { mcpName: 'tasks_run' });
    expect((run.body.result as { _meta: Record<string, unknown> })._meta).not.toHaveProperty('commonroom/handoffId');
  });
});
