import fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunner, type RunningRoom } from '../../../src-main/server/runner';
import { makeHome, type TestHome } from '../../helpers/env';

let home: TestHome;
let running: RunningRoom;
let operator: Client;

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'graphs-test', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, unknown> };
  return r;
}

async function ok<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text}`);
  return r.structuredContent as T;
}

function counts(): Record<string, number> {
  const db = running.engine.room.db;
  const n = (t: string) => (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
  return { tasks: n('tasks'), graphs: n('graphs'), stages: n('graph_stages'), events: n('events') };
}

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
  operator = await connect(fs.readFileSync(running.tokenFile, 'utf8').trim());
});
afterAll(async () => {
  await operator.close();
  await running.close();
  home.cleanup();
});

describe('task graphs through a real MCP client', () => {
  it('lists the five tools', async () => {
    const names = (await operator.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['tasks_run', 'tasks_status', 'tasks_list', 'tasks_cancel', 'tasks_graph', 'tasks_rerun']));
  });

  it('tasks_run answers at once; tasks_status polls to completion; tasks_graph shows states and what waits on what', async () => {
    const run = await ok<{ graphId: string; stages: { id: string; state: string }[] }>(operator, 'tasks_run', {
      name: 'mcp diamond',
      stages: [
        { id: 'a', command: 'sleep 0.3; echo a-done' },
        { id: 'b', command: ['sh', '-c', 'echo b'], dependsOn: ['a'] },
        { id: 'c', command: 'echo c', dependsOn: ['a'] },
        { id: 'd', command: 'echo d', dependsOn: ['b', 'c'] },
      ],
    });
    expect(run.graphId).toMatch(/^gr_[A-Za-z0-9_-]{22}$/);
    expect(run.stages.map((s) => s.state)).toEqual(['running', 'pending', 'pending', 'pending']);

    const topo = await ok<{ stages: { id: string; state: string; waitingOn: { stages: { id: string }[] } | null; dependents: string[] }[] }>(operator, 'tasks_graph', { graphId: run.graphId });
    const d = topo.stages.find((s) => s.id === 'd');
    expect(d?.state).toBe('pending');
    expect(d?.waitingOn?.stages.map((s) => s.id).sort()).toEqual(['b', 'c']);
    expect(topo.stages.find((s) => s.id === 'a')?.dependents).toEqual(['b', 'c']);

    type Status = { graph: { state: string; progress: { done: number; total: number } } };
    let status: Status = { graph: { state: 'unknown', progress: { done: 0, total: 0 } } };
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      status = await ok<Status>(operator, 'tasks_status', { graphId: run.graphId });
      seen.add(status.graph.state);
      if (status.graph.state === 'completed' || status.graph.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(status.graph).toMatchObject({ state: 'completed', progress: { done: 4, total: 4 } });
    expect(seen.has('running')).toBe(true);
    // the cheap poll of a large graph: the graph and its counts, no stage list
    const light = await ok<Record<string, unknown>>(operator, 'tasks_status', { graphId: run.graphId, stages: false });
    expect(Object.keys(light)).toEqual(['graph']);
    expect(light.graph).toMatchObject({ state: 'completed', progress: { done: 4, total: 4, byState: { completed: 4 } } });
    const both = await call(operator, 'tasks_status', { graphId: run.graphId, stageId: 'a', stages: false });
    expect(both.isError).toBe(true);
    expect(both.content[0]?.text).toMatch(/^INVALID_INPUT: stages applies to a whole graph: leave it out with stageId/);
    const stage = await ok<{ stage: { state: string }; log: { records: { text: string }[]; more: boolean } }>(operator, 'tasks_status', { graphId: run.graphId, stageId: 'a' });
    expect(stage.stage.state).toBe('completed');
    expect(stage.log.records.map((r) => r.text).join('')).toContain('a-done');
    const after = await ok<{ stages: { state: string }[] }>(operator, 'tasks_graph', { graphId: run.graphId });
    expect(after.stages.map((s) => s.state)).toEqual(['completed', 'completed', 'completed', 'completed']);

    const list = await ok<{ graphs: { graphId: string; name: string }[] }>(operator, 'tasks_list', {});
    expect(list.graphs[0]).toMatchObject({ graphId: run.graphId, name: 'mcp diamond' });
  });

  it('tasks_status until "ended" waits for the whole graph in one call, not for its first change', async () => {
    // one call that waits for the whole graph: a stage ending on the way does not answer it
    const chain = await ok<{ graphId: string }>(operator, 'tasks_run', {
      stages: [
        { id: 'first', command: 'sleep 0.2' },
        { id: 'second', command: 'sleep 0.2', dependsOn: ['first'] },
      ],
    });
    const whole = await ok<{ graph: { state: string; progress: { done: number } }; waitedMs: number }>(operator, 'tasks_status', { graphId: chain.graphId, stages: false, waitMs: 20_000, until: 'ended' });
    expect(whole.graph).toMatchObject({ state: 'completed', progress: { done: 2 } });
    expect('stages' in whole).toBe(false);
    // woken by the end (two 0.2 s stages), not by the 20 s deadline
    expect(whole.waitedMs).toBeGreaterThan(0);
    expect(whole.waitedMs).toBeLessThan(10_000);
    // waitMs 0 waits for nothing: the answer is now
    const now = await ok<{ graph: { state: string } }>(operator, 'tasks_status', { graphId: chain.graphId, stages: false, waitMs: 0, until: 'ended' });
    expect(now.graph.state).toBe('completed');
    for (const [args, message] of [
      [{ stageId: 'first', waitMs: 1000, until: 'ended' }, /^INVALID_INPUT: until applies to a whole graph: leave out stageId/],
      [{ until: 'ended' }, /^INVALID_INPUT: until says what waitMs waits for: give waitMs too \(at most \d+ ms\)/],
    ] as const) {
      const r = await call(operator, 'tasks_status', { graphId: chain.graphId, ...args });
      expect(r.isError).toBe(true);
      expect(r.content[0]?.text).toMatch(message);
    }
  });

  it.each([
    ['a cycle, named', { stages: [{ id: 'a', command: 'true', dependsOn: ['b'] }, { id: 'b', command: 'true', dependsOn: ['a'] }] }, /cycle: (a → b → a|b → a → b)/],
    ['an unknown dependency', { stages: [{ id: 'a', command: 'true', dependsOn: ['ghost'] }] }, /depends on "ghost", which is not a stage/],
    ['a duplicate id', { stages: [{ id: 'a', command: 'true' }, { id: 'a', command: 'false' }] }, /two stages have the id "a"/],
    ['an empty graph', { stages: [] }, /at least one stage/],
    ['a graph over the size limit', { stages: Array.from({ length: 10_001 }, (_, i) => ({ id: `s${i}`, command: 'true' })) }, /at most 10000 stages/],
    ['a missing cwd', { stages: [{ id: 'a', command: 'true', cwd: '/no/such/folder' }] }, /cwd \/no\/such\/folder is not a folder/],
    ['a bad stage id', { stages: [{ id: '../etc', command: 'true' }] }, /stage id is 1-64 letters/],
  ])('refuses %s with a clear error and writes nothing', async (_label, graph, message) => {
    const before = counts();
    const r = await call(operator, 'tasks_run', graph);
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toMatch(/^INVALID_INPUT: /);
    expect(r.content[0]?.text).toMatch(message);
    expect(counts()).toEqual(before);
  });

  it('a participant without write cannot run; a participant sees only its own graphs; operate sees all', async () => {
    const reader = await running.engine.call(running.engine.operator(), 'participant_add', { name: 'reader', capabilities: ['read'] });
    const writer = await running.engine.call(running.engine.operator(), 'participant_add', { name: 'writer', capabilities: ['read', 'write'] });
    const r = await connect(reader.token);
    const w = await connect(writer.token);
    try {
      expect((await r.listTools()).tools.map((t) => t.name)).not.toContain('tasks_run');
      const before = counts();
      const refused = await r.callTool({ name: 'tasks_run', arguments: { stages: [{ id: 'x', command: 'touch /tmp/should-not-exist' }] } }).catch((e: Error) => e);
      expect(String(refused instanceof Error ? refused.message : JSON.stringify(refused))).toMatch(/unknown tool|tasks_run/);
      expect(counts()).toEqual(before);

      const mine = await ok<{ graphId: string }>(w, 'tasks_run', { stages: [{ id: 'x', command: 'true' }] });
      expect((await ok<{ graphs: { graphId: string }[] }>(w, 'tasks_list', {})).graphs.map((g) => g.graphId)).toEqual([mine.graphId]);
      expect((await ok<{ graphs: unknown[] }>(r, 'tasks_list', {})).graphs).toEqual([]);
      const hidden = await call(r, 'tasks_status', { graphId: mine.graphId });
      expect(hidden.isError).toBe(true);
      expect(hidden.content[0]?.text).toMatch(/NOT_FOUND: unknown graph/);
      const all = await ok<{ graphs: { owner: string }[] }>(operator, 'tasks_list', { limit: 100 });
      expect(all.graphs.map((g) => g.owner)).toEqual(expect.arrayContaining(['writer', 'operator']));
    } finally {
      await r.close();
      await w.close();
    }
  });

  it('tasks_list pages newest first with a cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await ok<{ graphId: string }>(operator, 'tasks_run', { name: `page ${i}`, stages: [{ id: 'x', command: 'true' }] })).graphId);
    const first = await ok<{ graphs: { graphId: string }[]; nextCursor: string | null }>(operator, 'tasks_list', { limit: 2 });
    expect(first.graphs.map((g) => g.graphId)).toEqual([ids[2], ids[1]]);
    const second = await ok<{ graphs: { graphId: string }[] }>(operator, 'tasks_list', { limit: 2, cursor: first.nextCursor });
    expect(second.graphs[0]?.graphId).toBe(ids[0]);
    const bad = await call(operator, 'tasks_list', { cursor: 'garbage' });
    expect(bad.content[0]?.text).toMatch(/INVALID_INPUT: cursor is not one this runner gave out: .*omit cursor to start from the newest graph/);
  });

  it('approve sees every graph but cancelling another participant\'s graph needs operate', async () => {
    const approver = await running.engine.call(running.engine.operator(), 'participant_add', { name: 'approver', capabilities: ['read', 'write', 'approve'] });
    const a = await connect(approver.token);
    try {
      const theirs = await ok<{ graphId: string }>(operator, 'tasks_run', { stages: [{ id: 'x', command: 'sleep 30', killGraceMs: 100 }] });
      expect((await ok<{ graph: { owner: string } }>(a, 'tasks_status', { graphId: theirs.graphId })).graph.owner).toBe('operator');
      const refused = await call(a, 'tasks_cancel', { graphId: theirs.graphId });
      expect(refused.content[0]?.text).toMatch(/^FORBIDDEN: .*only it or the operator may cancel it/);
      expect((await ok<{ graph: { state: string } }>(operator, 'tasks_cancel', { graphId: theirs.graphId })).graph.state).toBe('cancelled');
    } finally {
      await a.close();
    }
  });

  it('refuses a graph beyond the active-graph limit, and accepts again once one ended', async () => {
    const ids: string[] = [];
    try {
      for (let i = 0; i < 16; i++) ids.push((await ok<{ graphId: string }>(operator, 'tasks_run', { stages: [{ id: 'hold', command: 'sleep 30', killGraceMs: 100 }] })).graphId);
      const before = counts();
      const refused = await call(operator, 'tasks_run', { stages: [{ id: 'one-more', command: 'true' }] });
      expect(refused.content[0]?.text).toMatch(/^LIMIT_EXCEEDED: the room already runs 16 graphs/);
      expect(counts()).toEqual(before);
      await ok(operator, 'tasks_cancel', { graphId: ids.pop() });
      await ok(operator, 'tasks_run', { stages: [{ id: 'one-more', command: 'true' }] });
    } finally {
      for (const id of ids) await ok(operator, 'tasks_cancel', { graphId: id });
    }
  });
});
