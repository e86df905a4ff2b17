/**
 * `ce` shows agent-written text with its control characters made visible, never obeyed: an escape sequence in
 * a summary, a result, a reason or a graph's name could otherwise write the clipboard (OSC 52), retitle the
 * terminal, or erase a line and forge another. `--json` keeps the text exactly. The real `ce`, against a real
 * room process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { execFile } from 'node:child_process';
import { BIN_CE } from '../helpers/env';

/** The real `ce`, without blocking this process (the room process it talks to runs in it). */
function runCe(home: TestRunner['home'], args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN_CE, ...args], { env: home.env, encoding: 'utf8', timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

const HOSTILE = 'Fix the build\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2K\rApproved by the operator\x1b]0;owned\x07\u202eexe.txt\x9b31m';
let runner: TestRunner;
let handoffId: string;
let graphId: string;

beforeAll(async () => {
  runner = await startTestRunner();
  const { engine } = runner.running;
  for (const name of ['mallory', 'asker']) await engine.call(engine.operator(), 'participant_add', { name, capabilities: ['read', 'write'] });
  const mallory = engine.participantAs(engine.operator(), 'mallory');
  const asker = engine.participantAs(engine.operator(), 'asker');
  ({ handoff: { id: handoffId } } = await engine.call(asker, 'handoff_create', { summary: HOSTILE, to: 'mallory', constraints: HOSTILE }));
  await engine.call(mallory, 'handoff_accept', { handoffId });
  await engine.call(mallory, 'handoff_complete', { handoffId, result: `line one\n${HOSTILE}\nline three` });
  ({ graphId } = await engine.call(mallory, 'tasks_run', { name: HOSTILE, stages: [{ id: 'say', command: ['printf', 'out\\033]52;c;eA==\\007put\\n'] }] }));
  for (let i = 0; i < 100; i++) {
    const status = await engine.call(engine.operator(), 'tasks_status', { graphId });
    if ('graph' in status && status.graph.state === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
});

afterAll(() => runner?.close());

// eslint-disable-next-line no-control-regex -- what must not reach the terminal
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

describe('ce prints agent text safely', () => {
  for (const command of [['handoffs'], ['handoff', 'ID'], ['graphs'], ['graph', 'GRAPH'], ['logs', 'GRAPH']]) {
    it(`ce ${command.join(' ')} escapes control characters and escape sequences`, async () => {
      const args = command.map((a) => (a === 'ID' ? handoffId : a === 'GRAPH' ? graphId : a));
      const out = await runCe(runner.home, args);
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).not.toMatch(CONTROL);
      if (command[0] === 'logs') expect(out.stdout).toContain('out\\x1b]52;c;eA==\\x07put');
      else {
        expect(out.stdout).toContain('\\x1b]52;c;');
        // the lists cut long summaries; the detail views show them whole
        if (command.length > 1) expect(out.stdout).toContain('\\u{202e}');
      }
    });
  }

  it('--json keeps the text as the agent wrote it', async () => {
    const out = await runCe(runner.home, ['handoff', handoffId, '--json']);
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout).handoff.summary).toBe(HOSTILE);
  });

  it('ce logs --raw prints the output as the stage wrote it', async () => {
    const out = await runCe(runner.home, ['logs', `${graphId}:say`, '--raw']);
    expect(out.stdout).toContain('out\x1b]52;c;eA==\x07put');
  });
});
