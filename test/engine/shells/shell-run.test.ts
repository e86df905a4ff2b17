import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodInput } from '../../../src-main/common/contract';
import { RoomError } from '../../../src-main/common/errors';
import { BASH, offsetOf, shellBench, type ShellBench } from './helpers';

let bench: ShellBench;
beforeAll(async () => {
  bench = await shellBench();
});
afterAll(() => bench.close());

const run = (input: MethodInput<'shell_run'>) => bench.engine.call(bench.operator, 'shell_run', input);

/** The shells shell_run must answer in: bash and zsh with prompt marks, sh (dash here) with the sentinel. */
const SHELLS: { name: string; open: Partial<MethodInput<'shell_open'>>; integration: 'marks' | 'sentinel' }[] = [
  { name: 'bash', open: BASH, integration: 'marks' },
  { name: 'sh', open: { shell: '/bin/sh', args: [], env: { PS1: '$ ', ENV: '' } }, integration: 'sentinel' },
];
if (fs.existsSync('/bin/zsh') || fs.existsSync('/usr/bin/zsh')) {
  SHELLS.push({ name: 'zsh', open: { shell: fs.existsSync('/bin/zsh') ? '/bin/zsh' : '/usr/bin/zsh', args: [], env: { PS1: 'Z> ' } }, integration: 'marks' });
}

describe.each(SHELLS)('shell_run in $name', ({ open, integration }) => {
  it('answers the output without the echoed command line, and exit codes 0 and 1', { timeout: 60_000 }, async () => {
    const shell = await bench.open(open);
    const ok = await run({ shellId: shell.id, command: "printf 'one\\ntwo\\n'", timeoutMs: 20_000 });
    expect(ok).toMatchObject({ status: 'finished', exitCode: 0, output: 'one\ntwo\n', integration, omittedBytes: 0 });
    const failed = await run({ shellId: shell.id, command: 'ls /no/such/folder 2>/dev/null', timeoutMs: 20_000 });
    expect(failed.status).toBe('finished');
    expect(failed.exitCode).not.toBe(0);
    const one = await run({ shellId: shell.id, command: 'false', timeoutMs: 20_000 });
    expect(one).toMatchObject({ status: 'finished', exitCode: 1, output: '' });
    const code = await run({ shellId: shell.id, command: '(exit 42)', timeoutMs: 20_000 });
    expect(code.exitCode).toBe(42);
    // the output is exactly what shell_io reads between the run's cursors, marks stripped
    const again = await bench.io({ shellId: shell.id, cursor: ok.cursor, maxBytes: offsetOf(ok.nextCursor, shell.id) - offsetOf(ok.cursor, shell.id) });
    expect(again.output).toBe('one\ntwo\n');
  });

  it('C-c ends a running command with exit code 130; a timeout leaves it running', { timeout: 60_000 }, async () => {
    const shell = await bench.open(open);
    const slow = await run({ shellId: shell.id, command: "printf 'start%s\\n' ed; sleep 30", timeoutMs: 1_000 });
    expect(slow).toMatchObject({ status: 'running', exitCode: null });
    expect(slow.hint).toMatch(/interrupt: true/);
    // a second command while the first runs is refused, and says how to go on
    const busy = await run({ shellId: shell.id, command: 'true' }).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(RoomError);
    expect((busy as RoomError).message).toMatch(/still running/);
    const stopped = await run({ shellId: shell.id, interrupt: true, timeoutMs: 20_000 });
    expect(stopped).toMatchObject({ status: 'finished', exitCode: 130 });
    expect(stopped.output).toContain('started');
    // and the shell answers the next command
    const next = await run({ shellId: shell.id, command: "printf 'ne%s\\n' xt", timeoutMs: 20_000 });
    expect(next).toMatchObject({ status: 'finished', exitCode: 0, output: 'next\n' });
  });

  it('keeps waiting for a command left running, and reports a shell that exits', { timeout: 60_000 }, async () => {
    const shell = await bench.open(open);
    const first = await run({ shellId: shell.id, command: "sleep 1.5; printf 'la%s\\n' te", timeoutMs: 200 });
    expect(first.status).toBe('running');
    const waited = await run({ shellId: shell.id, timeoutMs: 20_000 });
    expect(waited).toMatchObject({ status: 'finished', exitCode: 0, output: 'late\n' });
    const gone = await run({ shellId: shell.id, command: 'exit 7', timeoutMs: 20_000 });
    expect(gone).toMatchObject({ status: 'shellExited', exitCode: 7 });
  });
});

describe('bash with the user\'s own start-up files', () => {
  it('runs ~/.bashrc (its aliases and PROMPT_COMMAND work) and still marks every command', { timeout: 60_000 }, async () => {
    const home = bench.home.root;
    fs.writeFileSync(`${home}/.bashrc`, "alias greet='printf \"hi %s\\n\"'\nPS1='RC> '\nPROMPT_COMMAND='__seen=yes'\n");
    const shell = await bench.open({ shell: '/bin/bash', args: [], env: { HOME: home, HISTFILE: '/dev/null' } });
    const r = await run({ shellId: shell.id, command: 'greet there; echo "pc=$__seen"', timeoutMs: 20_000 });
    expect(r).toMatchObject({ status: 'finished', exitCode: 0, output: 'hi there\npc=yes\n', integration: 'marks' });
    const failed = await run({ shellId: shell.id, command: 'false', timeoutMs: 20_000 });
    expect(failed.exitCode).toBe(1);
    // the user's prompt is what the person sees; shell_list shows the arguments asked for, not the integration's
    const shot = await bench.io({ shellId: shell.id, format: 'screen' });
    expect(shot.output).toContain('RC> ');
    const listed = (await bench.engine.call(bench.operator, 'shell_list', {})).shells.find((s) => s.id === shell.id);
    expect(listed?.command).toEqual(['/bin/bash']);
  });

  it("a PROMPT_COMMAND with separators at its ends (pyenv-virtualenv's \"hook;\") still runs, and every command is marked", { timeout: 60_000 }, async () => {
    const home = bench.home.root;
    fs.writeFileSync(`${home}/.bashrc`, "PS1='RC> '\n__hook() { __seen=$((__seen+1)); }\nPROMPT_COMMAND='; __hook; '\n");
    const shell = await bench.open({ shell: '/bin/bash', args: [], env: { HOME: home, HISTFILE: '/dev/null' } });
    for (const command of ['echo one', 'echo two', 'echo "seen=$__seen"']) {
      const r = await run({ shellId: shell.id, command, timeoutMs: 20_000 });
      expect(r, command).toMatchObject({ status: 'finished', exitCode: 0, integration: 'marks' });
    }
    const screen = await bench.io({ shellId: shell.id, cursor: 'start', format: 'raw' });
    expect(screen.output).not.toContain('syntax error');
    expect(screen.output).toMatch(/seen=[1-9]/);
  });

  it('a ~/.bashrc that waits (a stale pyenv rehash lock) delays the shell, not the room: the answer says the start-up files are still running, and the command runs after them', { timeout: 60_000 }, async () => {
    const home = fs.mkdtempSync(`${bench.home.root}/slow-home-`);
    const go = `${home}/go`;
    // what pyenv rehash does while another shell's lock file is left: wait for it (up to a minute)
    fs.writeFileSync(`${home}/.bashrc`, `while [ ! -e '${go}' ]; do sleep 0.05; done\nPS1='RC> '\n`);
    const shell = await bench.open({ shell: '/bin/bash', args: [], env: { HOME: home, HISTFILE: '/dev/null' } });
    const early = await run({ shellId: shell.id, command: 'echo typed-early', timeoutMs: 1_000 });
    expect(early.status).toBe('running');
    expect(early.hint).toMatch(/not shown its first prompt yet: its start-up files .* are still running/);
    fs.writeFileSync(go, '');
    const done = await run({ shellId: shell.id, timeoutMs: 20_000 });
    expect(done).toMatchObject({ status: 'finished', exitCode: 0 });
    expect(done.output).toContain('typed-early');
    const next = await run({ shellId: shell.id, command: 'echo after', timeoutMs: 20_000 });
    expect(next).toMatchObject({ status: 'finished', exitCode: 0, output: 'after\n' });
  });
});

describe('shell_run refusals', () => {
  it('says what to do when nothing is running', async () => {
    const shell = await bench.open();
    await expect(run({ shellId: shell.id })).rejects.toThrow(/no command is running .* give `command`/);
    await expect(run({ shellId: shell.id, interrupt: true })).rejects.toThrow(/no command is running/);
  });

  it('clamps a long timeout as documented', async () => {
    const shell = await bench.open();
    const r = await run({ shellId: shell.id, command: 'true', timeoutMs: 600_000 });
    expect(r.effectiveTimeoutMs).toBe(bench.engine.limits.shellMaxWaitMs);
    expect(r.exitCode).toBe(0);
  });

  it('keeps the newest maxBytes of a long output and says how much was left out', async () => {
    const shell = await bench.open();
    const r = await run({ shellId: shell.id, command: 'seq 1 2000', maxBytes: 100, timeoutMs: 20_000 });
    expect(r.exitCode).toBe(0);
    expect(r.output.endsWith('1999\n2000\n')).toBe(true);
    expect(r.omittedBytes).toBeGreaterThan(5000);
    expect(offsetOf(r.nextCursor, shell.id) - offsetOf(r.cursor, shell.id) - r.omittedBytes).toBeLessThanOrEqual(100);
  });
});

describe('a run ended by someone else', () => {
  it('a command interrupted with shell_io (a person pressing C-c) no longer blocks the next run', { timeout: 60_000 }, async () => {
    const shell = await bench.open();
    expect((await run({ shellId: shell.id, command: 'sleep 30', timeoutMs: 300 })).status).toBe('running');
    await bench.io({ shellId: shell.id, input: [{ key: 'C-c' }], wait: { until: 'match', pattern: 'PROMPT> $' } });
    const next = await run({ shellId: shell.id, command: "printf 'fr%s\\n' ee", timeoutMs: 20_000 });
    expect(next).toMatchObject({ status: 'finished', exitCode: 0, output: 'free\n' });
  });
});
