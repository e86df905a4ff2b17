import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let running: RunningRoom;
let operatorToken: string;
let runner: TestRunner;
let agent: { token: string };
let stranger: { token: string };
beforeAll(async () => {
  runner = await startTestRunner();
  ({ running, token: operatorToken } = runner);
  const op = running.engine.operator();
  agent = await running.engine.call(op, 'participant_add', { name: 'recovering-agent', capabilities: ['read', 'write'] });
  stranger = await running.engine.call(op, 'participant_add', { name: 'stranger', capabilities: ['read', 'write'] });
});
afterAll(() => runner?.close());

const getTask = (query: string, token?: string, method = 'GET') =>
  fetch(new URL(`/workspace/task${query}`, running.mcpUrl), { method, headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('GET /workspace/task (seed 001 recovery: the task record is the authority)', () => {
  it('an agent reads the task its MCP call made, the same record tasks/get reads; others get the unknown-task answer', async () => {
    const client = new Client({ name: 'recovering', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${agent.token}` } } }));
    let taskId: string;
    try {
      const created = (await client.callTool({ name: 'handoff_create', arguments: { summary: 'recover me after a gap' } })) as { structuredContent: { handoff: { taskId: string } } };
      taskId = created.structuredContent.handoff.taskId;
    } finally {
      await client.close();
    }
    // the listen stream is gone (a gap): the record says where things stand
    const read = await getTask(`?taskId=${encodeURIComponent(taskId)}`, agent.token);
    expect(read.status).toBe(200);
    const { task } = ((await read.json()) as { result: { task: { taskId: string; status: string; owner: string } } }).result;
    expect(task).toMatchObject({ taskId, status: 'working', owner: 'recovering-agent', taskLog: `task-log://${encodeURIComponent(taskId)}` });
    expect(task.status).toBe(running.engine.room.tasks.get(taskId)?.status);

    // a task only its owner may see (an open handoff is visible to whoever could take it)
    const own = running.engine.tasks.create({ operation: 'test.private', owner: 'recovering-agent', ttlMs: null, pollIntervalMs: 1000 });
    expect((await getTask(`?taskId=${own.id}`, agent.token)).status).toBe(200);
    const hidden = await getTask(`?taskId=${own.id}`, stranger.token);
    const unknown = await getTask('?taskId=no-such-task', agent.token);
    expect([hidden.status, unknown.status]).toEqual([404, 404]);
    // the same answer, naming only the id asked for
    const message = async (r: Response, id: string) => ((await r.json()) as { error: { message: string } }).error.message.replace(id, '<id>');
    expect(await message(hidden, own.id)).toBe(await message(unknown, 'no-such-task'));
    // the operator sees every task
    expect((await getTask(`?id=${encodeURIComponent(taskId)}`, operatorToken)).status).toBe(200);
  });

  it('needs a bearer token, GET, and a task id, each refusal saying what to do', async () => {
    const none = await getTask('?taskId=x');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const post = await getTask('?taskId=x', agent.token, 'POST');
    expect(post.status).toBe(405);
    expect(((await post.json()) as { error: { message: string } }).error.message).toMatch(/use GET \/workspace\/task\?taskId=/);
    const missing = await getTask('', agent.token);
    expect(missing.status).toBe(400);
    expect((await getTask(`?taskId=${'x'.repeat(65)}`, agent.token)).status).toBe(400);
  });
});
