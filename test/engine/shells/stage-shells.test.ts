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
    const prompt = await bench.io({ shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: 'NAME\\?' } });
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

  it("belongs to whoever submitted the graph: that agent sees and types into it, another agent does not", async () => {
    const { engine, operator } = bench;
    const a = await engine.call(operator, 'participant_add', { name: 'stage-owner', capabilities: ['read', 'write'] });
    const b = await engine.call(operator, 'participant_add', { name: 'stage-other', capabilities: ['read', 'write'] });
    const asA = engine.authenticate(a.token);
    const asB = engine.authenticate(b.token);
    if (!asA || !asB) throw new Error('tokens did not authenticate');
    // raw bytes end to end: a euro sign written in two pieces reaches the shell (and the stage log) whole
    const run = await engine.call(asA, 'tasks_run', {
      stages: [{ id: 'mine', command: "printf 'x\\342'; sleep 0.2; printf '\\202\\254y\\n'; read answer; echo \"ok $answer\"", tty: true }],
    });
    let shell: { id: string; owner: string } | undefined;
    for (let i = 0; i < 200 && !shell; i++) {
      shell = (await engine.call(asA, 'shell_list', {})).shells.find((s) => s.name.startsWith(`stage ${run.graphId}:mine`));
      if (!shell) await sleep(25);
    }
    if (!shell) throw new Error('the tty stage never appeared as a shell of its submitter');
    expect(shell.owner).toBe('stage-owner');
    expect((await engine.call(asB, 'shell_list', {})).shells.map((s) => s.id)).not.toContain(shell.id);
    await expect(engine.call(asB, 'shell_io', { shellId: shell.id, text: 'no\r' })).rejects.toThrow(/unknown shell/);
    const euro = await bench.io({ shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: 'x€y' } }, asA);
    expect(euro.wait?.reason).toBe('matched');
    const answered = await bench.io({ shellId: shell.id, text: 'teal\r', wait: { until: 'match', pattern: 'ok teal' } }, asA);
    expect(answered.wait?.reason).toBe('matched');
    let status = await engine.call(asA, 'tasks_status', { graphId: run.graphId, stageId: 'mine' });
    for (let i = 0; i < 200 && status.graph.state !== 'completed'; i++) {
      await sleep(25);
      status = await engine.call(asA, 'tasks_status', { graphId: run.graphId, stageId: 'mine' });
    }
    expect(status.graph.state).toBe('completed');
    const log = 'log' in status ? status.log.records.map((r) => r.text).join('') : '';
    expect(log).toContain('x€y');
    expect(log).not.toContain('\ufffd');
  });
});
