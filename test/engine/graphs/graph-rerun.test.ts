import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src-main/common/dto';
import { openBench, type GraphBench } from './graph-helpers';

let b: GraphBench;
beforeAll(async () => {
  b = await openBench();
});
afterAll(async () => {
  await b.close();
});

/** A participant of the room, added by the operator, acting with exactly the given capabilities. */
async function agent(name: string, capabilities: Caller['capabilities']): Promise<Caller> {
  await b.engine.call(b.engine.operator(), 'participant_add', { name, capabilities: [...capabilities] });
  return { name, role: 'agent', capabilities };
}

describe('tasks_rerun', () => {
  it('runs an ended graph again as a new graph with the same spec, owned by the caller', async () => {
    const writer = await agent('writer', ['read', 'write']);
    const first = await b.engine.call(writer, 'tasks_run', {
      name: 'diamond',
      maxParallel: 2,
      stages: [
        { id: 'a', command: ['sh', '-c', 'echo from-a'] },
        { id: 'b', command: ['sh', '-c', 'exit 3'], dependsOn: ['a'] },
        { id: 'c', command: 'true', dependsOn: ['a'] },
        { id: 'd', command: 'true', dependsOn: ['b', 'c'] },
      ],
    });
    const ended = await b.waitEnded(first.graphId);
    expect(ended.graph.state).toBe('failed');

    const again = await b.engine.call(writer, 'tasks_rerun', { graphId: first.graphId });
    expect(again.graphId).not.toBe(first.graphId);
    const second = await b.waitEnded(again.graphId);
    expect(second.graph).toMatchObject({ name: 'diamond', owner: 'writer', maxParallel: 2, state: 'failed' });
    expect(Object.fromEntries(second.stages.map((s) => [s.id, s.state]))).toEqual({ a: 'completed', b: 'failed', c: 'completed', d: 'skipped' });
    expect(second.stages.find((s) => s.id === 'b')?.exitCode).toBe(3);
    expect(await b.logText(again.graphId, 'a')).toContain('from-a');
    // the first graph is left as it was
    expect((await b.status(first.graphId)).graph.state).toBe('failed');
  });

  it('refuses a running graph, a graph the caller may not see, and a caller without write', async () => {
    const owner = await agent('owner', ['read', 'write']);
    const run = await b.engine.call(owner, 'tasks_run', { stages: [{ id: 'slow', command: ['sleep', '30'] }] });
    await expect(b.engine.call(owner, 'tasks_rerun', { graphId: run.graphId })).rejects.toThrow(/still (pending|running).*tasks_cancel/);
    await b.engine.call(owner, 'tasks_cancel', { graphId: run.graphId });
    await b.waitEnded(run.graphId);

    const stranger = await agent('stranger', ['read', 'write']);
    await expect(b.engine.call(stranger, 'tasks_rerun', { graphId: run.graphId })).rejects.toThrow(/unknown graph/);
    const reader = await agent('reader', ['read', 'approve']);
    await expect(b.engine.call(reader, 'tasks_rerun', { graphId: run.graphId })).rejects.toThrow(/write/);

    const again = await b.engine.call(owner, 'tasks_rerun', { graphId: run.graphId });
    expect(again.stages.map((s) => s.id)).toEqual(['slow']);
    await b.engine.call(owner, 'tasks_cancel', { graphId: again.graphId });
    await b.waitEnded(again.graphId);
  });

  it('with only: "failed", runs only the stages that did not complete, each with its dependencies among them', async () => {
    const writer = await agent('rerunner', ['read', 'write']);
    const flag = path.join(os.tmpdir(), `rerun-flag-${process.pid}-${Date.now()}`);
    const first = await b.engine.call(writer, 'tasks_run', {
      name: 'flaky diamond',
      stages: [
        { id: 'a', command: 'true' },
        // fails the first time it runs, passes after
        { id: 'b', command: ['sh', '-c', `test -f ${flag} || { touch ${flag}; exit 3; }`], dependsOn: ['a'] },
        { id: 'c', command: 'true', dependsOn: ['a'] },
        { id: 'd', command: 'true', dependsOn: ['b', 'c'] },
      ],
    });
    const ended = await b.waitEnded(first.graphId);
    expect(Object.fromEntries(ended.stages.map((s) => [s.id, s.state]))).toEqual({ a: 'completed', b: 'failed', c: 'completed', d: 'skipped' });

    const again = await b.engine.call(writer, 'tasks_rerun', { graphId: first.graphId, only: 'failed' });
    expect(again.stages.map((s) => s.id)).toEqual(['b', 'd']);
    const second = await b.waitEnded(again.graphId);
    expect(second.graph).toMatchObject({ name: 'flaky diamond', state: 'completed' });
    expect(Object.fromEntries(second.stages.map((s) => [s.id, s.state]))).toEqual({ b: 'completed', d: 'completed' });
    // a graph that completed every stage has nothing failed to re-run
    await expect(b.engine.call(writer, 'tasks_rerun', { graphId: again.graphId, only: 'failed' })).rejects.toThrow(/nothing failed to re-run/);
    fs.rmSync(flag, { force: true });
  });
});
