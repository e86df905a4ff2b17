import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Capability } from '../../../src-main/common/capabilities';
import type { HandoffView, TaskView } from '../../../src-main/common/handoff-dto';
import { Engine } from '../../../src-main/engine/engine';
import { migrate } from '../../../src-main/engine/store/migrations';
import { Room } from '../../../src-main/engine/room/room';
import { makeHome, type TestHome } from '../../helpers/env';
import { runCe, startServe, stopServe, type ServeProcess } from '../../helpers/serve';

let home: TestHome;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => home.cleanup());

/** How the test acts as an agent: the HTTP API of a running room process, or an engine on the room file. */
type Act = (token: string, method: string, input: Record<string, unknown>) => Promise<unknown>;

/**
 * One connection per call: between calls this test runs ce with spawnSync, which blocks its event loop past
 * the server's 5 s keep-alive, so a kept socket would be reused after the server closed it ("other side closed").
 */
function overHttp(serve: ServeProcess): Act {
  return (token, method, input) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(input);
      const req = http.request(new URL(`/api/${method}`, serve.mcpUrl), {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', reject);
        res.on('end', () => {
          const parsed = JSON.parse(text) as { result?: unknown; error?: { message: string } };
          if ((res.statusCode ?? 500) >= 400) reject(new Error(parsed.error?.message ?? `HTTP ${res.statusCode}`));
          else resolve(parsed.result);
        });
      });
      req.end(body);
    });
}

const offline: Act = async (token, method, input) => {
  const engine = await Engine.start(Room.open({ paths: home.paths }));
  try {
    const caller = engine.authenticate(token);
    if (!caller) throw new Error('token did not authenticate');
    return await engine.call(caller, method as never, input as never);
  } finally {
    await engine.close();
  }
};

function addAgent(name: string, can: Capability[]): string {
  const r = runCe(home, ['participant', 'add', name, '--can', can.join(','), '--json']);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { token: string }).token;
}

const json = <T>(args: string[]): T => {
  const r = runCe(home, [...args, '--json']);
  expect(r.status, `ce ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
};

async function cancelGraphTask(act: Act, alice: string): Promise<void> {
  const { taskId: graphTask } = (await act(alice, 'tasks_run', { name: 'long', stages: [{ id: 'wait', command: ['sleep', '60'] }] })) as { taskId: string };
  expect(json<{ task: TaskView }>(['task', graphTask, '--participant', 'alice']).task.status).toBe('working');
  expect(runCe(home, ['task-cancel', graphTask, '--participant', 'carol']).stderr).toMatch(/unknown task/);
  const graphCancel = runCe(home, ['task-cancel', graphTask, '--participant', 'alice']);
  expect(graphCancel.stdout, graphCancel.stderr).toContain(`cancelled task ${graphTask} (cancelled)`);
  expect(json<{ task: TaskView }>(['task', graphTask, '--participant', 'alice']).task.status).toBe('cancelled');
}

/** The same walk through every ce handoff command, whoever holds the room. */
async function walk(act: Act) {
  const alice = addAgent('alice', ['read', 'write']);
  const bob = addAgent('bob', ['read', 'write']);
  addAgent('carol', ['read', 'write']);
  const create = async (summary: string) => ((await act(alice, 'handoff_create', { summary, to: 'bob' })) as { handoff: HandoffView }).handoff;
  const finish = async (id: string) => {
    await act(bob, 'handoff_accept', { handoffId: id });
    await act(bob, 'handoff_complete', { handoffId: id, result: `result of ${id}` });
  };
  const one = await create('first: approve me');
  const two = await create('second: reject me');
  const three = await create('third: cancel me');
  await finish(one.id);
  await finish(two.id);

  // listing and reading (the room file, read-only)
  const listed = runCe(home, ['handoffs']);
  expect(listed.status, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(new RegExp(`${three.id}\\s+open\\s+working\\s+alice → bob\\s+third: cancel me`));
  expect(listed.stdout).toMatch(new RegExp(`${one.id}\\s+result_ready\\s+completed`));
  expect(json<{ handoffs: HandoffView[] }>(['handoffs']).handoffs.map((h) => h.id)).toEqual([three.id, two.id, one.id]);
  const shown = runCe(home, ['handoff', one.id]);
  expect(shown.stdout).toContain('result:      by bob');
  expect(shown.stdout).toContain(`  result of ${one.id}`);
  expect(runCe(home, ['handoff', 'h_nope']).stderr).toMatch(/unknown handoff "h_nope"/);

  // ce task needs a participant, and shows a task only to one who may see it
  const bare = runCe(home, ['task', three.taskId]);
  expect(bare.status).toBe(2);
  expect(bare.stderr).toMatch(/--participant NAME \(a task id alone is not authorization\)/);
  const hidden = runCe(home, ['task', three.taskId, '--participant', 'carol']);
  expect(hidden.status).toBe(1);
  expect(hidden.stderr).toMatch(/unknown task/);
  expect(runCe(home, ['task', 't_nope', '--participant', 'carol']).stderr).toBe(hidden.stderr.replace(three.taskId, 't_nope'));
  expect(json<{ task: TaskView }>(['task', three.taskId, '--participant', 'bob']).task).toMatchObject({ taskId: three.taskId, status: 'working', ttl: 86_400_000, pollInterval: 5000 });

  // decisions and cancellation, as the operator (or with the named participant's rights)
  expect(runCe(home, ['approve', one.id]).stdout).toContain(`approved ${one.id}`);
  expect(runCe(home, ['approve', one.id]).stderr).toMatch(/cannot approve a handoff that is approved/);
  const noReason = runCe(home, ['reject', two.id]);
  expect(noReason.status).toBe(2);
  expect(noReason.stderr).toMatch(/--reason/);
  expect(runCe(home, ['reject', two.id, '--reason', 'wrong file']).stdout).toContain(`rejected ${two.id}: wrong file`);
  expect(runCe(home, ['task-cancel', three.taskId]).status).toBe(2);
  expect(runCe(home, ['task-cancel', three.taskId, '--participant', 'carol']).stderr).toMatch(/unknown task/);
  // bob is the addressee, not the owner: he may see it but not cancel it
  expect(runCe(home, ['task-cancel', three.taskId, '--participant', 'bob']).stderr).toMatch(/only the handoff's owner \(alice\)/);
  expect(runCe(home, ['task-cancel', three.taskId, '--participant', 'alice', '--reason', 'not needed']).stdout).toContain(`cancelled task ${three.taskId}`);
  // a graph run's task, which ce task shows, is cancelled the same way (as MCP tasks/cancel would); with a
  // room process to run it (a one-shot engine ends its graphs when it closes)
  if (act !== offline) await cancelGraphTask(act, alice);

  const after = json<{ handoffs: HandoffView[] }>(['handoffs']).handoffs;
  expect(after.map((h) => [h.id, h.status, h.task?.status])).toEqual([
    [three.id, 'cancelled', 'cancelled'],
    [two.id, 'rejected', 'completed'],
    [one.id, 'approved', 'completed'],
  ]);
  const events = runCe(home, ['handoff-events', one.id]);
  expect(events.stdout.trim().split('\n').map((l) => /handoff\.\w+/.exec(l)?.[0])).toEqual([
    'handoff.created',
    'handoff.accepted',
    'handoff.completed',
    'handoff.approved',
  ]);
  expect(events.stdout).toMatch(/handoff\.approved\s+operator/);
  const cancelEvents = json<{ events: { kind: string; actor: string }[] }>(['handoff-events', three.id]).events;
  expect(cancelEvents.at(-1)).toMatchObject({ kind: 'handoff.cancelled', actor: 'alice' });
}

describe('ce handoff commands', () => {
  // many `ce` processes one after another: a budget for a loaded 2-core box, not a timing claim
  it('against a room held by a running commonroom serve', { timeout: 180_000 }, async () => {
    const serve = await startServe(home);
    try {
      await walk(overHttp(serve));
      // the changes went through the serving process: it still holds the room
      expect(() => Room.open({ paths: home.paths })).toThrow(/pid/);
    } finally {
      await stopServe(serve);
    }
  });

  it('against a room no process holds (ce opens it as writer, then lets go)', { timeout: 180_000 }, async () => {
    // only serve or ce init create a room: every other command refuses one that does not exist
    expect(runCe(home, ['init']).status).toBe(0);
    await walk(offline);
    Room.open({ paths: home.paths }).close();
  });
});

describe('ce handoff listings on a room from before handoffs', () => {
  it('say how to upgrade it instead of failing on a missing table', () => {
    const md = path.join(home.root, 'old.md');
    fs.writeFileSync(md, '# old\n');
    const db = new Database(`${md}.commonroom.db`);
    fs.chmodSync(`${md}.commonroom.db`, 0o600);
    migrate(db, 'old', 2);
    db.close();
    const r = runCe(home, ['handoffs', '--room', md]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/schema 2, from before handoffs: open it once with this version \("commonroom serve"\) to upgrade it/);
  });
});
