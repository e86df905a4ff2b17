/**
 * The renderer's graphs store against a real engine through a real UiSession (the UI door's logic, without the
 * wire): it lists the room's graphs and follows the chosen one live from the change feed alone (no polling),
 * shows a failed stage's log and its dependents skipped, cancels a stage, re-runs a failed graph as a new one,
 * pages the list, and says what went wrong in words.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../src-main/engine/engine';
import { EngineClient } from '../../src-renderer/src/engine-client';
import { createGraphsStore, graphIdOf } from '../../src-renderer/src/stores/graphs-store';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { SessionTransport } from './session-transport';

let runner: TestRunner;
let engine: Engine;
let work: string;

beforeAll(async () => {
  // the paging test keeps more graphs than the default at once (each ends at once)
  runner = await startTestRunner({ limits: { maxActiveGraphs: 64 } });
  engine = runner.running.engine;
  work = path.join(runner.home.root, 'work');
  fs.mkdirSync(work);
});
afterAll(() => runner?.close());

const run = (input: Record<string, unknown>) => engine.call(engine.operator(), 'tasks_run', input);
/** Submits a graph and waits for it to end (a burst of submissions would otherwise outrun the active-graph limit). */
async function runToEnd(input: Record<string, unknown>): Promise<void> {
  const { graphId } = await run(input);
  await vi.waitFor(async () => expect((await engine.call(engine.operator(), 'tasks_status', { graphId })).graph.endedAt).not.toBeNull(), WAIT);
}
const WAIT = { timeout: 20_000, interval: 20 };

function openStore() {
  const transport = new SessionTransport(engine);
  const client = new EngineClient(transport);
  const store = createGraphsStore(client);
  return {
    transport,
    client,
    store,
    state: () => store.getState(),
    stateOf: (id: string) => store.getState().topology?.stages.find((s) => s.id === id)?.state,
    close() {
      store.dispose();
      client.close();
    },
  };
}

describe('graphs store on a real engine', () => {
  it('lists the graphs when the link opens and follows the chosen one live: a failure, its dependent skipped, the log', async () => {
    const gate = path.join(work, 'gate-1');
    const { graphId } = await run({
      name: 'diamond',
      stages: [
        { id: 'a', command: ['sh', '-c', `while [ ! -f ${gate} ]; do sleep 0.05; done; echo a-done`] },
        { id: 'b', command: ['sh', '-c', 'echo b-ok'], dependsOn: ['a'] },
        { id: 'c', command: ['sh', '-c', 'echo c-out; echo c-broke >&2; exit 7'], dependsOn: ['a'] },
        { id: 'd', command: 'true', dependsOn: ['b', 'c'] },
      ],
    });
    const s = openStore();
    await vi.waitFor(() => expect(s.state().loaded).toBe(true), WAIT);
    expect(s.state().graphs.map((g) => g.graphId)).toContain(graphId);
    // the newest graph is chosen by itself, with its topology and stages
    await vi.waitFor(() => expect(s.state().selectedGraphId).toBe(graphId), WAIT);
    await vi.waitFor(() => expect(s.stateOf('a')).toBe('running'), WAIT);
    expect(s.state().topology?.stages.find((x) => x.id === 'd')?.waitingOn?.stages.map((w) => w.id)).toEqual(['b', 'c']);

    s.state().selectStage('c');
    const listCallsBefore = s.transport.called.filter((m) => m === 'tasks_list').length;
    fs.writeFileSync(gate, '');
    await vi.waitFor(() => expect(s.stateOf('c')).toBe('failed'), WAIT);
    await vi.waitFor(() => expect(s.stateOf('d')).toBe('skipped'), WAIT);
    await vi.waitFor(() => expect(s.state().topology?.graph.state).toBe('failed'), WAIT);
    await vi.waitFor(() => expect(s.state().log?.records.map((r) => r.text).join('')).toContain('c-broke'), WAIT);
    expect(s.state().log?.stageId).toBe('c');
    expect(s.state().stages.find((x) => x.id === 'c')).toMatchObject({ errorCode: 'EXIT_NONZERO', exitCode: 7 });
    // the list row follows the graph's state, read again only because the feed said so
    expect(s.state().graphs.find((g) => g.graphId === graphId)?.state).toBe('failed');
    expect(s.transport.called.filter((m) => m === 'tasks_list').length).toBeGreaterThan(listCallsBefore);
    s.close();
  });

  it("follows a graph from its stage events alone, as a fresh read has it: a retry's wait and new attempt, ready, waits-on and progress", async () => {
    const flag = path.join(work, 'flag-patch');
    const gate = path.join(work, 'gate-patch');
    const waitGate = `while [ ! -f ${gate} ]; do sleep 0.02; done`;
    const stages = [
      // fails its first attempt, waits its backoff, then passes
      { id: 'flaky', command: ['sh', '-c', `${waitGate}; if [ -f ${flag} ]; then echo ok; else touch ${flag}; exit 3; fi`], retries: 1, retryBackoffMs: 300 },
      // long-running: ready on a log line, its dependents start while it runs (the room ends it after them)
      { id: 'server', command: ['sh', '-c', `${waitGate}; echo listening; while true; do sleep 0.05; done`], readiness: { log: 'listening' } },
      ...Array.from({ length: 40 }, (_, i) => ({ id: `leaf-${i}`, command: 'true', dependsOn: ['flaky', 'server'] })),
    ];
    const { graphId } = await run({ name: 'patched', stages, maxParallel: 4 });
    const s = openStore();
    await vi.waitFor(() => expect(s.state().topology?.graph.graphId).toBe(graphId), WAIT);
    await vi.waitFor(() => expect(s.state().topology?.stages.find((x) => x.id === 'flaky')?.state).toBe('running'), WAIT);
    const wholeReads = () => s.transport.called.filter((m) => m === 'tasks_graph').length;
    const before = wholeReads();
    const seen = new Set<string>();
    const off = s.store.subscribe((st) => {
      const flaky = st.topology?.stages.find((x) => x.id === 'flaky');
      if (flaky?.retrying) seen.add('retrying');
      if (st.topology?.stages.find((x) => x.id === 'server')?.ready) seen.add('ready');
    });
    fs.writeFileSync(gate, '');
    // once its dependents are done the room ends the long-running stage, and the graph completes
    await vi.waitFor(() => expect(s.state().topology?.graph.state).toBe('completed'), WAIT);
    off();
    expect([...seen].sort()).toEqual(['ready', 'retrying']);
    // the stage events (~90 of them) were applied without reading the graph again: only the graph's own state
    // changes (running, completed) read it
    expect(wholeReads() - before).toBeLessThanOrEqual(2);
    const fresh = await engine.call(engine.operator(), 'tasks_graph', { graphId });
    expect(s.state().topology?.stages).toEqual(fresh.stages);
    expect(s.state().topology?.graph.progress).toEqual(fresh.graph.progress);
    s.close();
  });

  it('patches what it would read: a pending stage waits on its dependencies and then for a free slot', async () => {
    const gate = path.join(work, 'gate-slot');
    const { graphId } = await run({
      name: 'slots',
      maxParallel: 1,
      stages: [
        { id: 'first', command: ['sh', '-c', `while [ ! -f ${gate} ]; do sleep 0.05; done`] },
        { id: 'second', command: 'true' },
        { id: 'after', command: 'true', dependsOn: ['first'] },
      ],
    });
    const s = openStore();
    await vi.waitFor(() => expect(s.state().topology?.stages.find((x) => x.id === 'first')?.state).toBe('running'), WAIT);
    const node = (id: string) => s.state().topology?.stages.find((x) => x.id === id);
    expect(node('second')?.waitingOn).toEqual({ stages: [], slot: true });
    expect(node('after')?.waitingOn).toEqual({ stages: [{ id: 'first', state: 'running' }], slot: false });
    fs.writeFileSync(gate, '');
    await vi.waitFor(() => expect(s.state().topology?.graph.state).toBe('completed'), WAIT);
    expect(s.state().topology?.stages).toEqual((await engine.call(engine.operator(), 'tasks_graph', { graphId })).stages);
    s.close();
  });

  it('cancels a running stage (its dependents skipped) and says so; re-runs a failed graph as a new, chosen graph', async () => {
    const { graphId } = await run({
      name: 'long',
      stages: [
        { id: 'slow', command: ['sh', '-c', 'exec sleep 300'] },
        { id: 'after', command: 'true', dependsOn: ['slow'] },
      ],
    });
    const s = openStore();
    await vi.waitFor(() => expect(s.state().loaded).toBe(true), WAIT);
    s.state().selectGraph(graphId);
    await vi.waitFor(() => expect(s.stateOf('slow')).toBe('running'), WAIT);
    await s.state().cancel('slow');
    expect(s.state().notice).toBeTruthy();
    await vi.waitFor(() => expect(s.stateOf('slow')).toBe('cancelled'), WAIT);
    await vi.waitFor(() => expect(s.stateOf('after')).toBe('skipped'), WAIT);

    const before = s.state().graphs.length;
    await s.state().rerun();
    const rerunId = s.state().selectedGraphId;
    expect(rerunId).not.toBe(graphId);
    expect(s.state().notice).toBe('Re-run submitted as a new graph.');
    await vi.waitFor(() => expect(s.state().graphs.length).toBe(before + 1), WAIT);
    await vi.waitFor(() => expect(s.state().topology?.graph.name).toBe('long'), WAIT);
    await s.state().cancel(); // the whole re-run
    await vi.waitFor(() => expect(s.state().topology?.graph.state).toBe('cancelled'), WAIT);
    s.close();
  });

  it('pages the list: more rows on demand, none twice, and a live update keeps what was paged in', async () => {
    for (let i = 0; i < 52; i++) await runToEnd({ name: `page-${i}`, stages: [{ id: 'only', command: 'true' }] });
    const s = openStore();
    await vi.waitFor(() => expect(s.state().loaded).toBe(true), WAIT);
    expect(s.state().graphs).toHaveLength(50);
    expect(s.state().nextCursor).not.toBeNull();
    await s.state().loadMore();
    const ids = s.state().graphs.map((g) => g.graphId);
    expect(ids.length).toBeGreaterThan(50);
    expect(new Set(ids).size).toBe(ids.length);
    const { graphId } = await run({ name: 'after paging', stages: [{ id: 'only', command: 'true' }] });
    await vi.waitFor(() => expect(s.state().graphs.map((g) => g.graphId)).toContain(graphId), WAIT);
    // re-read as many rows as were paged in, not collapsed back to the first page
    expect(s.state().graphs.length).toBe(ids.length);
    s.close();
  });

  it('a refresh that started before "more" was paged in does not collapse the list when it lands late', async () => {
    for (let i = 0; i < 52; i++) await runToEnd({ name: `late-${i}`, stages: [{ id: 'only', command: 'true' }] });
    const s = openStore();
    await vi.waitFor(() => expect(s.state().loaded).toBe(true), WAIT);
    expect(s.state().graphs).toHaveLength(50);
    // hold the answer to the next whole-list refresh until the page below has been added
    const call = s.client.call.bind(s.client);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let holdNext = true;
    s.client.call = (async (method: string, input: Record<string, unknown>) => {
      const out = await call(method as never, input as never);
      if (method === 'tasks_list' && !input.cursor && holdNext) {
        holdNext = false;
        await held;
      }
      return out;
    }) as typeof s.client.call;
    const refresh = s.state().refreshList();
    await s.state().loadMore();
    const paged = s.state().graphs.length;
    expect(paged).toBeGreaterThan(50);
    release();
    await refresh;
    expect(s.state().graphs.length).toBe(paged);
    expect(new Set(s.state().graphs.map((g) => g.graphId)).size).toBe(paged);
    s.close();
  });

  it('says in words when a graph cannot be read, and dismissing clears it', async () => {
    const s = openStore();
    await vi.waitFor(() => expect(s.state().loaded).toBe(true), WAIT);
    s.state().selectGraph('00000000-0000-4000-8000-000000000000');
    await vi.waitFor(() => expect(s.state().error).toMatch(/^could not read the graph: /), WAIT);
    s.state().dismissError();
    expect(s.state().error).toBeNull();
    s.close();
  });

  it('graphIdOf: a graph event names its graph by data.graphId or its subject; other events name none', () => {
    const ev = (kind: string, subject: string | null, data: unknown) => ({ id: 1, at: '', kind, actor: null, subject, data });
    expect(graphIdOf(ev('graph.stage', 'x', { graphId: 'g1' }))).toBe('g1');
    expect(graphIdOf(ev('graph.submitted', 'g2', {}))).toBe('g2');
    expect(graphIdOf(ev('handoff.created', 'h1', { graphId: 'g3' }))).toBeNull();
  });
});
