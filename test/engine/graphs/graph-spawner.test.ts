import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isAlive } from '../../../src-main/engine/process/process-tree';
import { parentPid, waitForPidFile } from '../../helpers/env';
import { openBench, type GraphBench } from './graph-helpers';

describe.skipIf(process.platform !== 'linux')('stages started through the spawner helper', () => {
  let b: GraphBench;
  beforeAll(async () => {
    b = await openBench();
  });
  afterAll(async () => {
    await b.close();
  });

  it('a stage runs as the helper child, its output and exit code come through it, and a cancel before its pid is known still ends it', async () => {
    const { graphId } = await b.run({ stages: [{ id: 'a', command: 'echo to-out; echo to-err >&2; exit 4' }] });
    const ended = await b.waitEnded(graphId);
    expect(ended.stages[0]).toMatchObject({ state: 'failed', errorCode: 'EXIT_NONZERO', exitCode: 4 });
    expect(await b.logText(graphId, 'a')).toContain('to-out');
    expect(await b.logText(graphId, 'a')).toContain('to-err');

    // cancelled in the same turn as it was submitted: the helper has not answered with a pid yet
    const second = await b.run({ stages: [{ id: 'long', command: ['sleep', '30'] }] });
    await b.engine.call(b.engine.operator(), 'tasks_cancel', { graphId: second.graphId });
    const cancelled = await b.waitEnded(second.graphId);
    expect(cancelled.stages[0]?.state).toBe('cancelled');
  });

  it("a running stage's pid and start time reach its row while it runs, also while short stages keep ticks coming", async () => {
    const pidFile = `${b.dir}/long-runner.pid`;
    const { graphId } = await b.run({
      maxParallel: 2,
      stages: [
        { id: 'long', command: `echo $$ > ${pidFile}; exec sleep 30` },
        ...Array.from({ length: 12 }, (_, i) => ({ id: `short${i}`, command: ['true'], dependsOn: i > 0 ? [`short${i - 1}`] : [] })),
      ],
    });
    const pid = await waitForPidFile(pidFile, 10_000);
    const row = () => b.engine.room.db.prepare("SELECT pid, pid_start AS pidStart FROM graph_stages WHERE graph_id = ? AND stage_id = 'long'").get(graphId) as { pid: number | null; pidStart: string | null };
    await vi.waitFor(() => expect(row().pid).toBe(pid), { timeout: 5_000, interval: 20 });
    expect(row().pidStart).toMatch(/^\d+$/);
    await b.engine.call(b.engine.operator(), 'tasks_cancel', { graphId });
    await b.waitEnded(graphId);
  });

  it('when the helper dies, its running stage is ended and fails RUNNER_RESTARTED saying why; the next graph runs', async () => {
    const pidFile = `${b.dir}/sleeper.pid`;
    const { graphId } = await b.run({ stages: [{ id: 'sleeper', command: `echo $$ > ${pidFile}; exec sleep 30` }] });
    const pid = await waitForPidFile(pidFile, 10_000);
    const helper = parentPid(pid);
    expect(helper).toBeGreaterThan(1);
    expect(helper).not.toBe(process.pid);
    process.kill(helper, 'SIGKILL');
    const ended = await b.waitEnded(graphId);
    expect(ended.stages[0]).toMatchObject({ state: 'failed', errorCode: 'RUNNER_RESTARTED' });
    expect(ended.stages[0]?.message).toMatch(/stage spawner process ended \(SIGKILL\).*exit could not be seen/);
    expect(isAlive(pid)).toBe(false);

    const next = await b.run({ stages: [{ id: 'after', command: 'echo fine' }] });
    const done = await b.waitEnded(next.graphId);
    expect(done.stages[0]?.state).toBe('completed');
    expect(await b.logText(next.graphId, 'after')).toBe('fine\n');
  });
});
