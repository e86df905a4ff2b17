import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellBench, sleep, type ShellBench } from './helpers';

let bench: ShellBench;
beforeAll(async () => {
  bench = await shellBench();
});
afterAll(() => bench.close());

describe('a tty graph stage is a live shell', () => {
  it('shows up in shell_list, takes typed input, and ends with its stage', async () => {
    const { engine, operator } = bench;
    const run = await engine.call(operator, 'tasks_run', {
      name: 'interactive',
      stages: [{ id: 'ask', command: "printf 'NA%s? ' ME; read answer; echo \"got $answer\"", tty: true }],
    });
    let shell: { id: string; name: string; owner: string } | undefined;
    for (let i = 0; i < 200 && !shell; i++) {
      shell = (await engine.call(operator, 'shell_list', {})).shells.find((s) => s.name.startsWith(`stage ${run.graphId}:ask`));
      if (!shell) await sleep(25);
    }
    if (!shell) throw new Error('the tty stage never appeared as a shell');
    expect(shell.owner).toBe('operator');
    const prompt = await bench.io({ shellId: shell.id, cursor: 0, wait: { until: 'match', pattern: 'NAME\\?' } });
    expect(prompt.wait?.reason).toBe('matched');
    await expect(engine.call(operator, 'shell_close', { shellId: shell.id })).rejects.toThrow(/tasks_cancel/);
    const answered = await bench.io({ shellId: shell.id, text: 'teal\r', wait: { until: 'match', pattern: 'got teal' } });
    expect(answered.wait?.reason).toBe('matched');
    let state = '';
    for (let i = 0; i < 200 && state !== 'completed'; i++) {
      state = (await engine.call(operator, 'tasks_status', { graphId: run.graphId })).graph.state;
      if (state !== 'completed') await sleep(25);
    }
    expect(state).toBe('completed');
    const closed = await engine.call(operator, 'shell_close', { shellId: shell.id });
    expect(closed.alreadyExited).toBe(true);
  });
});
