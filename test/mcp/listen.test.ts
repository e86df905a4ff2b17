import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenStats } from '../../src-main/mcp/eras/listen-2026';
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

const TASKS_EXT = 'io.modelcontextprotocol/tasks';
type Message = { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { code: number } };

interface Listener {
  messages: Message[];
  status: number;
  ended: Promise<'end' | 'error'>;
  req: http.ClientRequest;
  res: http.IncomingMessage;
}

/** A raw 2026 subscriptions/listen stream, parsed as it arrives; `paused` never reads (a lagging subscriber). */
function listen(notifications: Record<string, unknown>, options: { as?: string; declare?: boolean; paused?: boolean } = {}): Promise<Listener> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: `listen-${Math.random().toString(36).slice(2)}`,
    method: 'subscriptions/listen',
    params: {
      notifications,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': options.declare === false ? {} : { extensions: { [TASKS_EXT]: {} } },
      },
    },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: running.mcpUrl.port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${options.as ?? token}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'subscriptions/listen',
        },
      },
      (res) => {
        const messages: Message[] = [];
        let buffer = '';
        const ended = new Promise<'end' | 'error'>((done) => {
          res.on('end', () => done('end'));
          res.on('error', () => done('error'));
          res.on('aborted', () => done('error'));
          res.on('close', () => done('error'));
        });
        if (options.paused) res.pause();
        else {
          res.on('data', (chunk: Buffer) => {
            buffer += chunk.toString();
            let cut: number;
            while ((cut = buffer.indexOf('\n\n')) >= 0) {
              const frame = buffer.slice(0, cut);
              buffer = buffer.slice(cut + 2);
              const data = frame.split('\n').find((l) => l.startsWith('data: '));
              if (data) messages.push(JSON.parse(data.slice(6)) as Message);
            }
            if (res.headers['content-type']?.includes('application/json')) messages.push(JSON.parse(buffer) as Message);
          });
        }
        resolve({ messages, status: res.statusCode ?? 0, ended, req, res });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function bareTask(owner = 'operator') {
  return running.engine.tasks.create({ operation: 'test.noise', owner, ttlMs: null, pollIntervalMs: 1000 });
}

describe('subscriptions/listen', () => {
  it("a stage's transition reaches a listener of its graph's task while the graph still runs", async () => {
    const dir = path.dirname(running.engine.room.location.markdownPath);
    const gate = (name: string) => path.join(dir, `${name}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    const [first, second] = [gate('first'), gate('second')];
    const waitFor = (file: string) => `while [ ! -e '${file}' ]; do sleep 0.05; done`;
    const run = await running.engine.call(running.engine.operator(), 'tasks_run', {
      stages: [
        { id: 'first', command: waitFor(first), timeoutMs: 60_000 },
        { id: 'second', command: waitFor(second), timeoutMs: 60_000 },
      ],
    });
    const l = await listen({ taskIds: [run.taskId] });
    try {
      await until(() => l.messages.length >= 1, 'the acknowledgement');
      expect((l.messages[0] as Message).params?.notifications).toEqual({ taskIds: [run.taskId] });
      // one stage completes; the graph (and its task) keep running because the other stage waits
      fs.writeFileSync(first, '');
      const stageNote = () =>
        l.messages.find((m) => m.method === 'notifications/tasks' && m.params?.status === 'working' && /1 completed/.test(String(m.params?.statusMessage)));
      await until(() => stageNote() !== undefined, "the graph task's notification for the stage that completed");
      expect(stageNote()?.params).toMatchObject({ taskId: run.taskId, status: 'working' });
      expect(String(stageNote()?.params?.statusMessage)).toMatch(/1 running \(second\)/);
      fs.writeFileSync(second, '');
      await until(() => l.messages.some((m) => m.method === 'notifications/tasks' && m.params?.status === 'completed'), 'the completed graph task');
      expect(await l.ended).toBe('end');
    } finally {
      fs.writeFileSync(first, '');
      fs.writeFileSync(second, '');
      l.req.destroy();
    }
  });

  it('acknowledges first with only what it will send, then streams notifications/tasks stamped with the subscription id', async () => {
    const task = bareTask();
    const l = await listen({ taskIds: [task.id, 'made-up'], toolsListChanged: true });
    expect(l.status).toBe(200);
    await until(() => l.messages.length >= 1, 'the acknowledgement');
    const ack = l.messages[0] as Message;
    expect(ack.method).toBe('notifications/subscriptions/acknowledged');
    expect(ack.params?.notifications).toEqual({ taskIds: [task.id] });
    const subscriptionId = (ack.params?._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'];
    expect(subscriptionId).toMatch(/^listen-/);
    running.engine.tasks.transition(task.id, { status: 'completed', statusMessage: 'done', result: { content: [] } });
    await until(() => l.messages.some((m) => m.method === 'notifications/tasks'), 'a task notification');
    const note = l.messages.find((m) => m.method === 'notifications/tasks') as Message;
    // the frame keeps the task's own _meta (its task-log URI) beside the subscription id
    expect(note.params).toMatchObject({ taskId: task.id, status: 'completed', _meta: { 'io.modelcontextprotocol/subscriptionId': subscriptionId, 'commonroom/taskLog': `task-log://${encodeURIComponent(task.id)}` } });
    // every task it watches ended: the stream closes gracefully with its result
    expect(await l.ended).toBe('end');
    expect(l.messages.at(-1)?.result).toBeDefined();
  });

  it('asking for taskIds without declaring the extension is -32021', async () => {
    const l = await listen({ taskIds: [bareTask().id] }, { declare: false });
    expect(l.status).toBe(400);
    await l.ended;
    expect(l.messages[0]?.error?.code).toBe(-32021);
  });

  it("another participant's task is not acknowledged", async () => {
    const other = await running.engine.call(running.engine.operator(), 'participant_add', { name: 'listener-b', capabilities: ['read'] });
    const task = bareTask();
    const l = await listen({ taskIds: [task.id] }, { as: other.token });
    await until(() => l.messages.length >= 1, 'the acknowledgement');
    expect(l.messages[0]?.params?.notifications).toEqual({});
    expect(await l.ended).toBe('end');
  });

  it('streams of two participants on one task each get every change in order, fresh, under their own subscription id', async () => {
    const other = await running.engine.call(running.engine.operator(), 'participant_add', { name: 'listener-op', capabilities: ['read', 'operate'] });
    const task = bareTask();
    const streams = [await listen({ taskIds: [task.id] }), await listen({ taskIds: [task.id] }, { as: other.token }), await listen({ taskIds: [task.id] })];
    await until(() => streams.every((l) => l.messages.length >= 1), 'every acknowledgement');
    const question = { method: 'elicitation/create', params: { mode: 'form', message: 'go on?', requestedSchema: { type: 'object' } } };
    const seen = (status: string) => streams.every((l) => l.messages.some((m) => m.method === 'notifications/tasks' && m.params?.status === status));
    // the feed is delivered after the commit's turn (a stream reads the state as of its delivery): one change at a time
    running.engine.tasks.transition(task.id, { status: 'input_required', inputRequests: { q: question } });
    await until(() => seen('input_required'), 'input_required on every stream');
    running.engine.tasks.transition(task.id, { status: 'working', statusMessage: 'answered' });
    await until(() => seen('working'), 'working on every stream');
    running.engine.tasks.transition(task.id, { status: 'completed', result: { content: [] } });
    for (const l of streams) expect(await l.ended).toBe('end');
    for (const l of streams) {
      const subscriptionId = (l.messages[0]?.params?._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'];
      const notes = l.messages.filter((m) => m.method === 'notifications/tasks');
      // one read per change is shared by the streams: each still sees each state once, in order
      expect(notes.map((m) => m.params?.status)).toEqual(['input_required', 'working', 'completed']);
      expect(notes.every((m) => (m.params?._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'] === subscriptionId)).toBe(true);
    }
    expect(new Set(streams.map((l) => (l.messages[0]?.params?._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'])).size).toBe(3);
  });

  it('who may see a change is decided per participant: streams of one who lost sight of a handoff get nothing, its owner gets every change', async () => {
    const op = running.engine.operator();
    const b = await running.engine.call(op, 'participant_add', { name: 'listen-taker', capabilities: ['read', 'write'] });
    const c = await running.engine.call(op, 'participant_add', { name: 'listen-onlooker', capabilities: ['read', 'write'] });
    // open to anyone: a writer may see it (and take it) until someone accepts it
    const { handoff } = await running.engine.call(op, 'handoff_create', { summary: 'whoever takes it' });
    // the owner's stream first: it reads the change first, so a shared answer would be the owner's
    const owner = await listen({ taskIds: [handoff.taskId] });
    const onlookers = [await listen({ taskIds: [handoff.taskId] }, { as: c.token }), await listen({ taskIds: [handoff.taskId] }, { as: c.token })];
    await until(() => [owner, ...onlookers].every((l) => l.messages.length >= 1), 'every acknowledgement');
    for (const l of onlookers) expect(l.messages[0]?.params?.notifications).toEqual({ taskIds: [handoff.taskId] });
    const taker = running.engine.authenticate(b.token)!;
    await running.engine.call(taker, 'handoff_accept', { handoffId: handoff.id });
    await until(() => owner.messages.some((m) => m.method === 'notifications/tasks'), 'the acceptance on the owner\'s stream');
    await running.engine.call(taker, 'handoff_complete', { handoffId: handoff.id, result: 'done' });
    await until(() => owner.messages.some((m) => m.method === 'notifications/tasks' && m.params?.status === 'completed'), 'the completion on the owner\'s stream');
    // accepted by another, the handoff is no longer the onlooker's to see: neither change reached its streams
    await new Promise((r) => setTimeout(r, 200));
    for (const l of onlookers) {
      expect(l.messages.filter((m) => m.method === 'notifications/tasks')).toEqual([]);
      l.req.destroy();
    }
  });

  it('with 50 listeners, one that stops reading is dropped and the others keep receiving', async () => {
    const quiet = bareTask();
    const noisy = bareTask();
    const readers = await Promise.all(Array.from({ length: 49 }, () => listen({ taskIds: [quiet.id] })));
    const lagging = await listen({ taskIds: [noisy.id] }, { paused: true });
    await until(() => readers.every((r) => r.messages.length >= 1), 'every acknowledgement');
    // the lagging subscriber's task changes a lot, with big input requests: its backlog outgrows the limit
    const big = { question: { method: 'elicitation/create', params: { mode: 'form', message: 'x'.repeat(64 * 1024), requestedSchema: { type: 'object' } } } };
    const droppedBefore = listenStats.dropped;
    expect(listenStats.active).toBeGreaterThanOrEqual(50);
    for (let i = 0; i < 1000 && listenStats.dropped === droppedBefore; i++) {
      // each change leaves the task waiting on a new big request, so each notification carries it
      running.engine.tasks.transition(noisy.id, { status: 'input_required', inputRequests: { [`q${i}`]: big.question } });
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(listenStats.dropped).toBe(droppedBefore + 1);
    lagging.req.destroy();
    // the others are unaffected: they still get the next notification
    running.engine.tasks.transition(quiet.id, { status: 'completed', result: { content: [] } });
    await until(() => readers.every((r) => r.messages.some((m) => m.method === 'notifications/tasks')), 'every reader to be notified');
    for (const r of readers) expect(await r.ended).toBe('end');
  });
});

describe('subscriptions/listen and participants', () => {
  it('revoking a participant ends its open listen streams at once', async () => {
    const added = await running.engine.call(running.engine.operator(), 'participant_add', { name: 'soon-revoked', capabilities: ['read', 'write'] });
    const task = bareTask('soon-revoked');
    const l = await listen({ taskIds: [task.id] }, { as: added.token });
    await until(() => l.messages.length >= 1, 'the acknowledgement');
    expect(l.messages[0]?.params?.notifications).toEqual({ taskIds: [task.id] });
    await running.engine.call(running.engine.operator(), 'participant_revoke', { name: 'soon-revoked' });
    expect(await l.ended).toBe('error'); // cut off, not a graceful end
    running.engine.tasks.transition(task.id, { status: 'completed', result: { content: [] } });
    await new Promise((r) => setTimeout(r, 100));
    expect(l.messages.some((m) => m.method === 'notifications/tasks')).toBe(false);
  });

  it('notifications/cancelled for the listen request id ends that stream, unanswered; another id or another participant does not', async () => {
    const other = await running.engine.call(running.engine.operator(), 'participant_add', { name: 'canceller-b', capabilities: ['read'] });
    const task = bareTask();
    const l = await listen({ taskIds: [task.id] });
    try {
      await until(() => l.messages.length >= 1, 'the acknowledgement');
      const listenId = (l.messages[0]?.params?._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'] as string;
      const before = listenStats.active;
      let ended = false;
      void l.ended.then(() => (ended = true));
      const cancel = (requestId: string, as = token) =>
        fetch(running.mcpUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${as}`,
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'notifications/cancelled',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId, reason: 'done listening', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
          }),
        });
      expect((await cancel('listen-not-this-one')).status).toBe(202);
      expect((await cancel(listenId, other.token)).status).toBe(202);
      // a task change after both: the stream still carries it
      running.engine.tasks.transition(task.id, { status: 'working', statusMessage: 'still listening' });
      await until(() => l.messages.some((m) => m.method === 'notifications/tasks'), 'a notification after the unrelated cancels');
      expect(ended).toBe(false);
      expect((await cancel(listenId)).status).toBe(202);
      expect(await l.ended).toBe('end');
      expect(l.messages.some((m) => m.id === listenId)).toBe(false); // a cancelled request gets no response
      expect(listenStats.active).toBe(before - 1);
    } finally {
      l.req.destroy();
    }
  });

  it('a stream whose tasks had all ended already closes right after its acknowledgement', async () => {
    const task = bareTask();
    running.engine.tasks.transition(task.id, { status: 'completed', result: { content: [] } });
    const l = await listen({ taskIds: [task.id] });
    expect(await l.ended).toBe('end');
    expect(l.messages[0]?.method).toBe('notifications/subscriptions/acknowledged');
  });
});
