import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RoomError } from '../../../src-main/common/errors';
import { Engine } from '../../../src-main/engine/engine';
import { isAlive } from '../../../src-main/engine/process/process-tree';
import { Room } from '../../../src-main/engine/room/room';
import { makeHome } from '../../helpers/env';
import { offsetOf, openFds, shellBench, sleep, zombieChildren, type ShellBench } from './helpers';

let bench: ShellBench;
beforeAll(async () => {
  bench = await shellBench();
});
afterAll(() => bench.close());

async function refused(p: Promise<unknown>): Promise<RoomError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof RoomError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('shell_open / shell_io', () => {
  it('runs echo and reads the output by cursor', async () => {
    const shell = await bench.open({ name: 'echoer' });
    expect(shell).toMatchObject({ name: 'echoer', owner: 'operator', alive: true });
    const first = await bench.io({ shellId: shell.id, text: 'echo "hel""lo $((6*7))"\n', wait: { until: 'match', pattern: 'hello 42' } });
    expect(first.wait?.reason).toBe('matched');
    expect(first.output).toContain('hello 42');
    // reading again from the same cursor gives the same bytes; from nextCursor, nothing new
    const again = await bench.io({ shellId: shell.id, cursor: first.cursor, maxBytes: 100_000 });
    expect(again.output.startsWith(first.output)).toBe(true);
    const after = await bench.io({ shellId: shell.id, cursor: again.nextCursor });
    expect(after.output).toBe('');
    expect(after.more).toBe(false);
  });

  it('C-c interrupts a running sleep', async () => {
    const shell = await bench.open();
    // wait for the command to say it runs: an interactive shell hands it the terminal before it runs, so from then
    // on C-c reaches it; a C-c sent earlier (on the echo alone) could reach the shell instead and leave sleep running
    await bench.io({ shellId: shell.id, text: "sh -c 'echo SLEEP''ING; exec sleep 60'\n", wait: { until: 'match', pattern: '^SLEEPING\r?$' } });
    const r = await bench.io({
      shellId: shell.id,
      input: [{ key: 'C-c' }, { text: 'echo "status=$?"' }, { key: 'Enter' }],
      wait: { until: 'match', pattern: 'status=\\d+' },
    });
    expect(r.wait?.reason).toBe('matched');
    expect(r.wait?.match).toBe('status=130'); // 128 + SIGINT
  });

  it('a match wait returns when the text appears; a stop pattern ends it as a failure', async () => {
    const shell = await bench.open();
    // printf keeps the pattern out of the echoed command line
    // the command goes on after the match (sleep 3); if the C-c below lands between two commands of the list
    // (bash's own process group in front) the sleep is not interrupted, so it must end on its own soon
    const ok = await bench.io({ shellId: shell.id, text: "sleep 0.3; printf 'RE%sDY\\n' A; sleep 3\n", wait: { until: 'match', pattern: 'READY', timeoutMs: 20_000 } });
    expect(ok.wait).toMatchObject({ reason: 'matched', match: 'READY', effectiveTimeoutMs: 20_000 });
    expect(ok.alive).toBe(true);
    // wait for the prompt: typed-ahead text can be flushed by the terminal while C-c is handled
    await bench.io({ shellId: shell.id, input: [{ key: 'C-c' }], wait: { until: 'idle', idleMs: 300 } });
    const bad = await bench.io({
      shellId: shell.id,
      text: "printf 'ER%s: boom\\n' ROR; sleep 0.2; printf 'DO%s\\n' NE\n",
      wait: { until: 'match', pattern: 'DONE', stopPatterns: ['ERROR: \\w+'], timeoutMs: 20_000 },
    });
    expect(bad.wait).toMatchObject({ reason: 'stopped', match: 'ERROR: boom' });
  });

  it('an idle wait ends when output stops; an exit wait reports the code', async () => {
    const shell = await bench.open();
    const idle = await bench.io({ shellId: shell.id, text: 'for i in 1 2 3; do echo tick$i; sleep 0.1; done\n', wait: { until: 'idle', idleMs: 400 } });
    expect(idle.wait?.reason).toBe('idle');
    expect(idle.output).toContain('tick3');
    const exited = await bench.io({ shellId: shell.id, text: 'exit 7\n', wait: { until: 'exit' } });
    expect(exited.wait?.reason).toBe('exited');
    expect(exited.exit).toEqual({ exitCode: 7, signal: null });
    expect(exited.alive).toBe(false);
    // the output of an exited shell stays readable; input is refused with what to do
    expect((await bench.io({ shellId: shell.id, cursor: 'start' })).output).toContain('tick1');
    expect((await refused(bench.io({ shellId: shell.id, text: 'echo x\n' }))).message).toMatch(/has exited \(exit code 7\)/);
  });

  it('clamps waits to the documented maximum and reports a timeout', async () => {
    const shell = await bench.open();
    const r = await bench.io({ shellId: shell.id, wait: { until: 'match', pattern: 'never-printed', timeoutMs: 300 } });
    expect(r.wait).toMatchObject({ reason: 'timeout', effectiveTimeoutMs: 300 });
    // above the cap is clamped, not refused, and the answer says what was used
    const tooLong = await bench.io({ shellId: shell.id, text: 'echo cl""amped\n', wait: { until: 'match', pattern: 'clamped', timeoutMs: 600_000 } });
    expect(tooLong.wait).toMatchObject({ reason: 'matched', effectiveTimeoutMs: bench.engine.limits.shellMaxWaitMs });
  });

  it('decodes a multi-byte UTF-8 stream written one byte at a time, read in tiny windows', async () => {
    const shell = await bench.open();
    const expected = '😀 漢字 é ü 🎉 中文 ✓'.repeat(3);
    const script = `const s=Buffer.from(process.argv[1]);let i=0;const t=setInterval(()=>{if(i>=s.length){clearInterval(t);process.stdout.write("\\nE"+"ND\\n");return;}process.stdout.write(s.subarray(i,i+1));i++;},1);`;
    const start = (await bench.io({ shellId: shell.id, maxBytes: 1 })).nextCursor;
    const r = await bench.io({
      shellId: shell.id,
      text: `${process.execPath} -e '${script}' '${expected}'\n`,
      wait: { until: 'match', pattern: '^END$', timeoutMs: 20_000 },
    });
    expect(r.wait?.reason).toBe('matched');
    let cursor = start;
    let text = '';
    for (let guard = 0; guard < 10_000; guard++) {
      const part = await bench.io({ shellId: shell.id, cursor, maxBytes: 7, format: 'raw' });
      if (part.nextCursor === cursor) break;
      text += part.output;
      cursor = part.nextCursor;
    }
    expect(text).toContain(expected);
    expect(text).not.toContain('\uFFFD');
  });

  it('refuses bad input before sending anything', async () => {
    const shell = await bench.open();
    const before = (await bench.io({ shellId: shell.id, wait: { until: 'idle', idleMs: 100 } })).nextCursor;
    expect((await refused(bench.io({ shellId: shell.id, input: [{ text: 'echo sent\n' }, { key: 'C-' }] }))).message).toMatch(/unknown key "C-"/);
    expect((await refused(bench.io({ shellId: shell.id, text: 'echo x\n', wait: { until: 'match', pattern: '(' } }))).message).toMatch(/invalid wait pattern/);
    expect((await refused(bench.io({ shellId: shell.id, text: 'x'.repeat(64 * 1024 + 1) }))).code).toBe('INVALID_INPUT');
    const after = await bench.io({ shellId: shell.id, wait: { until: 'idle', idleMs: 200 } });
    expect(after.nextCursor).toBe(before);
    expect((await refused(bench.io({ shellId: 'sh-nope' }))).code).toBe('NOT_FOUND');
  });

  it('resizes', async () => {
    const shell = await bench.open({ cols: 80, rows: 24 });
    const r = await bench.io({ shellId: shell.id, resize: { cols: 132, rows: 40 }, text: 'stty size\n', wait: { until: 'match', pattern: '40 132' } });
    expect(r.wait?.reason).toBe('matched');
    const listed = (await bench.engine.call(bench.operator, 'shell_list', {})).shells.find((s) => s.id === shell.id);
    expect(listed).toMatchObject({ cols: 132, rows: 40 });
  });
});

describe('shell_close', () => {
  it('ends setsid and nohup grandchildren and a child that ignores SIGTERM; no other process is signalled', async () => {
    const bystander = spawn('sleep', ['120'], { stdio: 'ignore' });
    const pidFile = path.join(bench.home.root, 'pids');
    const shell = await bench.open();
    await bench.io({
      shellId: shell.id,
      text: [
        `setsid sh -c 'echo $$ >> ${pidFile}; exec sleep 300' &`,
        `nohup sh -c 'echo $$ >> ${pidFile}; exec sleep 300' >/dev/null 2>&1 &`,
        `sh -c 'trap "" TERM HUP INT; echo $$ >> ${pidFile}; while true; do sleep 1; done' &`,
        `printf 'STAR%s\\n' TED`,
        '',
      ].join('\n'),
      wait: { until: 'match', pattern: 'STARTED' },
    });
    for (let i = 0; i < 100 && (fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').trim().split('\n').length : 0) < 3; i++) await sleep(20);
    const pids = fs.readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(isAlive(pid)).toBe(true);

    const closed = await bench.engine.call(bench.operator, 'shell_close', { shellId: shell.id });
    expect(closed.alreadyExited).toBe(false);
    expect(closed.exit.signal ?? closed.exit.exitCode).not.toBeNull();
    for (const pid of [shell.pid, ...pids]) expect(isAlive(pid), `pid ${pid} survived`).toBe(false);
    expect(isAlive(bystander.pid as number)).toBe(true);
    bystander.kill('SIGKILL');
    expect((await refused(bench.io({ shellId: shell.id }))).message).toMatch(/it was closed/);
  });

  // on the ps backend each close runs `ps` a few times: fewer cycles prove the same there
  const CYCLES = process.env.COMMONROOM_PROCESS_BACKEND === 'ps' ? 40 : 200;
  it(`${CYCLES} open/close cycles leave no leaked descriptors and no zombies`, { timeout: 180_000 }, async () => {
    const cycles = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const s = await bench.open();
        if (i % 2 === 0) await bench.io({ shellId: s.id, text: 'exit\n', wait: { until: 'exit', timeoutMs: 5_000 } });
        await bench.engine.call(bench.operator, 'shell_close', { shellId: s.id });
      }
    };
    await cycles(5); // warm up lazily created handles
    await sleep(200);
    const fdsBefore = openFds();
    await cycles(CYCLES);
    await sleep(500);
    const fdsAfter = openFds();
    console.log(`[shells] open fds before ${fdsBefore}, after ${CYCLES} cycles ${fdsAfter}`);
    expect(fdsAfter - fdsBefore).toBeLessThanOrEqual(4);
    expect(zombieChildren()).toEqual([]);
  });
});

describe('limits, visibility, volatility', () => {
  it('caps open shells per room with a clear error', async () => {
    const small = await shellBench({ maxShells: 2 });
    try {
      await small.open();
      const second = await small.open();
      const third = await refused(small.open());
      expect(third.code).toBe('LIMIT_EXCEEDED');
      expect(third.message).toMatch(/close one with shell_close/);
      await small.engine.call(small.operator, 'shell_close', { shellId: second.id });
      await small.open();
    } finally {
      await small.close();
    }
  });

  it("an agent cannot see or touch another participant's shell; the operator sees all", async () => {
    const engine = bench.engine;
    const a = await engine.call(bench.operator, 'participant_add', { name: 'shell-a', capabilities: ['read', 'write'] });
    const b = await engine.call(bench.operator, 'participant_add', { name: 'shell-b', capabilities: ['read', 'write'] });
    const asA = engine.authenticate(a.token);
    const asB = engine.authenticate(b.token);
    if (!asA || !asB) throw new Error('tokens did not authenticate');
    const shell = await bench.open({}, asA);
    expect((await refused(bench.io({ shellId: shell.id }, asB))).code).toBe('NOT_FOUND');
    expect((await engine.call(asB, 'shell_list', {})).shells.map((s) => s.id)).not.toContain(shell.id);
    expect((await engine.call(bench.operator, 'shell_list', {})).shells.map((s) => s.id)).toContain(shell.id);
    expect((await refused(engine.call(asB, 'shell_close', { shellId: shell.id }))).code).toBe('NOT_FOUND');
  });

  it('shells end with the runner; after a restart a former id says the runner restarted', async () => {
    const home = makeHome();
    try {
      const first = await shellBench({}, { ...home, cleanup: () => undefined });
      const shell = await first.open();
      await first.io({ shellId: shell.id, text: 'sleep 300 &\n', wait: { until: 'idle', idleMs: 200 } });
      await first.engine.close();
      expect(isAlive(shell.pid)).toBe(false);
      const engine = await Engine.start(Room.open({ paths: home.paths }));
      try {
        const error = await refused(engine.call(engine.operator(), 'shell_io', { shellId: shell.id }));
        expect(error.message).toMatch(/^unknown shell: the runner restarted/);
      } finally {
        await engine.close();
      }
    } finally {
      home.cleanup();
    }
  });
});

describe('live viewers (the app side)', () => {
  it('a viewer that acknowledges slowly loses nothing of many short lines, though the scrollback keeps fewer of them', { timeout: 120_000 }, async () => {
    const slow = await shellBench({ viewerHighWatermark: 64 * 1024, viewerLowWatermark: 16 * 1024, viewerStallMs: 60_000 });
    try {
      const shell = await slow.open();
      const received: Buffer[] = [];
      let truncations = 0;
      let unacked = 0;
      let ackTimer: NodeJS.Timeout | undefined;
      const attachment = slow.engine.shells.attach(slow.operator, shell.id, {
        onData(bytes, _at, truncated) {
          if (truncated) truncations++;
          received.push(Buffer.from(bytes));
          unacked += bytes.length;
          // a page that takes its time: acknowledged in batches, a few ms later
          ackTimer ??= setTimeout(() => {
            ackTimer = undefined;
            const n = unacked;
            unacked = 0;
            attachment.ack(n);
          }, 5);
        },
      }, 0);
      // 300,000 lines: thirty times the lines the scrollback keeps, ~2 MiB
      await slow.io({ shellId: shell.id, text: "seq 1 300000; printf 'FIN%s\\n' ISHED\n", wait: { until: 'match', pattern: 'FINISHED', timeoutMs: 90_000 } });
      await vi.waitFor(() => expect(Buffer.concat(received).toString()).toMatch(/FINISHED\r\n/), { timeout: 30_000 });
      attachment.detach();
      const text = Buffer.concat(received).toString();
      expect(truncations).toBe(0);
      // every line of seq's output, each once and in order (the first one comes after the integration's mark)
      const numbers = text.split('\r\n').map((line) => line.slice(line.lastIndexOf('\x07') + 1)).filter((line) => /^\d+$/.test(line));
      expect(numbers).toHaveLength(300_000);
      expect(numbers.every((n, i) => n === String(i + 1))).toBe(true);
      // while an agent reading from the start gets the newest 10,000 lines, from a line's start
      const fromStart = await slow.io({ shellId: shell.id, cursor: 'start', maxBytes: 1024 * 1024 });
      const kept = fromStart.output.split('\n');
      expect(kept.length).toBeLessThanOrEqual(10_002);
      expect(Number(kept[0])).toBeGreaterThan(290_000);
    } finally {
      await slow.close();
    }
  });

  it('a slow viewer is paused at the high watermark instead of growing memory, and resumes on ack without gaps', async () => {
    const shell = await bench.open();
    const received: Buffer[] = [];
    const gaps: string[] = [];
    let truncations = 0;
    let lastEnd = -1;
    const attachment = bench.engine.shells.attach(bench.operator, shell.id, {
      onData(bytes, at, truncated) {
        // contiguous unless the viewer is told output was lost; never a duplicate
        if (truncated) truncations++;
        else if (lastEnd >= 0 && at !== lastEnd) gaps.push(`${lastEnd}→${at}`);
        if (at < lastEnd) gaps.push(`overlap at ${at}`);
        lastEnd = at + bytes.length;
        received.push(bytes);
      },
    }, 0);
    // more than the viewer may hold unacknowledged plus the whole ring, so some must be lost to a viewer that never acks
    const flood = bench.engine.limits.viewerHighWatermark + bench.engine.limits.shellScrollbackBytes + 1_000_000;
    await bench.io({ shellId: shell.id, text: `head -c ${flood} /dev/zero | tr '\\0' 'z'; printf '\\nFIN%s\\n' ISHED\n`, wait: { until: 'match', pattern: 'FINISHED', timeoutMs: 30_000 } });
    const unackedBytes = received.reduce((n, b) => n + b.length, 0);
    // never acknowledged: the viewer got at most the high watermark
    expect(unackedBytes).toBeLessThanOrEqual(bench.engine.limits.viewerHighWatermark);
    expect(unackedBytes).toBeGreaterThan(0);
    // acknowledging lets it catch up with what the ring still holds (it may be told some was lost)
    let total = unackedBytes;
    for (let i = 0; i < 200 && lastEnd < offsetOf((await bench.io({ shellId: shell.id, maxBytes: 1 })).nextCursor, shell.id); i++) {
      attachment.ack(total);
      total = 0;
      await sleep(5);
      total = received.slice(-50).reduce((n, b) => n + b.length, 0);
    }
    attachment.detach();
    expect(Buffer.concat(received).toString()).toContain('FINISHED');
    expect(gaps).toEqual([]);
    // the flood went through the ring while the viewer was paused at its watermark: it was told it missed some
    expect(truncations).toBe(1);
  });

  it('input from a person is recorded with who typed it', async () => {
    const shell = await bench.open();
    const attachment = bench.engine.shells.attach(bench.operator, shell.id, { onData: () => undefined }, 0);
    attachment.write('echo typed-by-person\n');
    attachment.detach();
    const listed = (await bench.engine.call(bench.operator, 'shell_list', {})).shells.find((s) => s.id === shell.id);
    expect(listed?.lastInput?.by).toBe('operator');
    void os;
  });
});

describe('wait patterns', () => {
  it('refuses a pattern RE2 cannot run, saying which syntax, and sends nothing', async () => {
    const shell = await bench.open();
    const before = (await bench.io({ shellId: shell.id, wait: { until: 'idle', idleMs: 100 } })).nextCursor;
    const error = await refused(bench.io({ shellId: shell.id, text: 'echo hi\n', wait: { until: 'match', pattern: '(a)\\1' } }));
    expect(error.message).toMatch(/backreferences .* are not supported/);
    expect((await bench.io({ shellId: shell.id, wait: { until: 'idle', idleMs: 200 } })).nextCursor).toBe(before);
  });
});

describe('shells that end on their own', () => {
  it('free their PTY at once and only the newest few stay readable', async () => {
    const small = await shellBench({ keepEndedShells: 2 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const s = await small.open({ shell: '/bin/sh', args: ['-c', `echo done-${i}`] });
        ids.push(s.id);
        await small.io({ shellId: s.id, wait: { until: 'exit' } });
      }
      await sleep(50);
      const listed = (await small.engine.call(small.operator, 'shell_list', {})).shells.map((s) => s.id);
      expect(listed).toEqual(ids.slice(-2));
      expect((await refused(small.io({ shellId: ids[0] as string }))).message).toMatch(/it was closed/);
      expect((await small.io({ shellId: ids[4] as string, cursor: 'start' })).output).toContain('done-4');
    } finally {
      await small.close();
    }
  });
});
