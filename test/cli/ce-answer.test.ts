import pty from 'node-pty';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stripAnsi } from '../../src-main/common/ansi';
import { BIN_CE, makeHome, type TestHome } from '../helpers/env';
import { seedRoomFile } from '../helpers/room-file';
import { runCe } from '../helpers/serve';

let home: TestHome;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => home.cleanup());

/** alice hands work to bob; bob accepts and asks two things: a form with a choice and a number, and a plain answer. */
function handoffAskingInput(): Promise<string> {
  return seedRoomFile(home, { alice: ['read', 'write'], bob: ['read', 'write'] }, async (engine, { alice, bob }) => {
    const { handoff } = await engine.call(alice, 'handoff_create', { summary: 'deploy it', to: 'bob' });
    await engine.call(bob, 'handoff_accept', { handoffId: handoff.id });
    await engine.call(bob, 'handoff_request_input', {
      handoffId: handoff.id,
      requests: {
        target: {
          message: 'Where to?',
          requestedSchema: {
            type: 'object',
            properties: { env: { type: 'string', enum: ['staging', 'prod'] }, replicas: { type: 'integer', title: 'Replicas' } },
            required: ['env', 'replicas'],
          },
        },
        note: { message: 'Anything else?' },
      },
    });
    return handoff.id;
  });
}

const json = <T>(args: string[]): T => {
  const r = runCe(home, [...args, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
};

interface Shown {
  handoff: { status: string; task: { status: string; inputRequests?: Record<string, unknown> }; inputAnswers: Record<string, { action: string; content?: unknown }> };
}

describe('ce answer', () => {
  it('ce handoff shows what is asked and how to answer; flags answer one request, checked against its form', async () => {
    const id = await handoffAskingInput();
    const shown = runCe(home, ['handoff', id]);
    expect(shown.stdout).toMatch(/input asked: target: Where to\?/);
    expect(shown.stdout).toMatch(/fields: env \(staging\|prod, required\), replicas \(integer, required\)/);
    expect(shown.stdout).toContain(`answer with: ce answer ${id} [KEY]`);

    // several requests: flags must name one; a bad value or a missing field is a usage error, nothing is sent
    expect(runCe(home, ['answer', id, '--set', 'env=prod']).stderr).toMatch(/asks 2 things \(target, note\): name the KEY/);
    const badValue = runCe(home, ['answer', id, 'target', '--set', 'env=prod', '--set', 'replicas=two']);
    expect(badValue.status).toBe(2);
    expect(badValue.stderr).toMatch(/replicas is a whole number/);
    expect(runCe(home, ['answer', id, 'target', '--set', 'env=moon', '--set', 'replicas=2']).stderr).toMatch(/env is one of: staging, prod/);
    expect(runCe(home, ['answer', id, 'target', '--set', 'env=prod']).stderr).toMatch(/needs --set replicas=/);
    expect(runCe(home, ['answer', id, 'nope', '--decline']).stderr).toMatch(/no outstanding input "nope"; it asks: target, note/);
    // no flags and no terminal: say how
    const noTty = runCe(home, ['answer', id, 'target']);
    expect(noTty.status).toBe(2);
    expect(noTty.stderr).toMatch(/pass --set FIELD=VALUE .* or run "ce answer" in a terminal/);
    expect(json<Shown>(['handoff', id]).handoff.inputAnswers).toEqual({});

    const first = runCe(home, ['answer', id, 'target', '--set', 'env=staging', '--set', 'replicas=3']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/answered target: accept .* the task is input_required \(still asking: note\)/);
    const second = runCe(home, ['answer', id, '--decline']);
    expect(second.stdout).toMatch(/answered note: decline .* the task is working/);
    const after = json<Shown>(['handoff', id]).handoff;
    expect(after.inputAnswers.target).toMatchObject({ action: 'accept', content: { env: 'staging', replicas: 3 } });
    expect(after.inputAnswers.note).toMatchObject({ action: 'decline' });
    expect(runCe(home, ['answer', id, '--decline']).stderr).toMatch(/asks for no input now \(its task is working\)/);
  }, 120_000);

  it('in a terminal it asks each request field by field, re-asking a bad value', async () => {
    const id = await handoffAskingInput();
    const term = pty.spawn(process.execPath, [BIN_CE, 'answer', id], { cols: 100, rows: 30, env: home.env as Record<string, string> });
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    // readline draws its prompt with cursor moves: compare the text a person sees
    const plain = () => stripAnsi(out);
    const answer = async (prompt: RegExp, text: string) => {
      await expect.poll(plain, { timeout: 20_000 }).toMatch(prompt);
      out = '';
      term.write(`${text}\r`);
    };
    try {
      await answer(/\[target\] Where to\?[\s\S]*decline \(d\) or cancel \(c\)\? \[a\] $/, '');
      await answer(/env \(one of staging, prod\): $/, 'moon');
      await answer(/env is one of: staging, prod[\s\S]*env \(one of staging, prod\): $/, 'prod');
      await answer(/Replicas \(integer\): $/, '2');
      await answer(/\[note\] Anything else\?[\s\S]*\[a\] $/, 'a');
      await answer(/answer: $/, 'ship it on Tuesday');
      expect(await exited).toBe(0);
      expect(plain()).toMatch(/answered target: accept, note: accept/);
    } finally {
      term.kill();
    }
    const after = json<Shown>(['handoff', id]).handoff;
    expect(after.inputAnswers.target?.content).toEqual({ env: 'prod', replicas: 2 });
    expect(after.inputAnswers.note?.content).toEqual({ answer: 'ship it on Tuesday' });
    expect(after.task.status).toBe('working');
  }, 120_000);

  it('ce handoff-cancel cancels a handoff before it has a result', async () => {
    const id = await handoffAskingInput();
    const r = runCe(home, ['handoff-cancel', id, '--reason', 'done by hand']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`cancelled ${id} (its task is cancelled)`);
    expect(json<Shown>(['handoff', id]).handoff.status).toBe('cancelled');
    expect(runCe(home, ['handoff-cancel', id]).status).toBe(1);
  }, 60_000);
});
