import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { signalName, spawnTerminal, utf8Decoder, type Terminal, type TerminalExit } from '../../../src-main/engine/terminal/pty';

/** Runs `script` under /bin/sh in a real PTY; every chunk of output as it arrived, and how it ended. */
function run(script: string): Promise<{ chunks: Buffer[]; exit: TerminalExit; term: Terminal }> {
  const term = spawnTerminal({ file: '/bin/sh', args: ['-c', script], cwd: os.tmpdir(), env: { PATH: process.env.PATH, LANG: 'C.UTF-8' }, cols: 80, rows: 24 });
  const chunks: Buffer[] = [];
  term.onData((bytes) => chunks.push(bytes));
  return new Promise((resolve) => term.onExit((exit) => resolve({ chunks, exit, term })));
}

describe('the one terminal model (engine/terminal/pty.ts)', () => {
  it('delivers raw bytes, exactly as written, even ones that are not UTF-8', async () => {
    // \377 is never valid UTF-8: a decoding adapter would turn it into U+FFFD (3 bytes)
    const { chunks, exit } = await run("printf 'A\\377B\\342\\202\\254C'");
    expect(chunks.every((c) => Buffer.isBuffer(c))).toBe(true);
    expect(Buffer.concat(chunks)).toEqual(Buffer.from([0x41, 0xff, 0x42, 0xe2, 0x82, 0xac, 0x43]));
    expect(exit).toEqual({ exitCode: 0, signal: null });
  });

  it('keeps a UTF-8 character whole when its bytes arrive in separate chunks', async () => {
    // the euro sign's first byte, then (after the reader surely took it) the other two
    const { chunks } = await run("printf 'x\\342'; sleep 0.3; printf '\\202\\254y'");
    const whole = Buffer.concat(chunks);
    expect(whole).toEqual(Buffer.from('x€y', 'utf8'));
    // the split really happened: some chunk ends inside the character
    const ends: number[] = [];
    chunks.reduce((at, c) => (ends.push(at + c.length), at + c.length), 0);
    expect(ends).toContain(2);
    const decoder = utf8Decoder();
    const text = chunks.map((c) => decoder.write(c)).join('') + decoder.end();
    expect(text).toBe('x€y');
    // what naive per-chunk decoding would have produced instead
    expect(chunks.map((c) => c.toString('utf8')).join('')).not.toBe('x€y');
  });

  it('a borrowing listener and a keeping one see the same bytes, and what the keeping one kept stays intact', async () => {
    const term = spawnTerminal({ file: '/bin/sh', args: ['-c', 'seq 1 50000'], cwd: os.tmpdir(), env: { PATH: process.env.PATH, LANG: 'C.UTF-8' }, cols: 80, rows: 24 });
    term.readAhead?.(64 * 1024);
    const kept: Buffer[] = [];
    const borrowed: Buffer[] = [];
    term.onData((bytes) => borrowed.push(Buffer.from(bytes)), { borrow: true }); // copies before returning, as it promised
    term.onData((bytes) => kept.push(bytes));
    const exit = await new Promise<TerminalExit>((resolve) => term.onExit(resolve));
    expect(exit).toEqual({ exitCode: 0, signal: null });
    const expected = Array.from({ length: 50000 }, (_, i) => `${i + 1}\r\n`).join('');
    expect(Buffer.concat(borrowed).toString('latin1')).toBe(expected);
    // the kept chunks are copies: later reads into the reader's buffer did not change them
    expect(Buffer.concat(kept).toString('latin1')).toBe(expected);
  });

  it('with read-ahead on, a flood arrives whole and in order, in bigger chunks, while the loop is busy and paused at times', async () => {
    const term = spawnTerminal({ file: '/bin/sh', args: ['-c', 'seq 1 200000'], cwd: os.tmpdir(), env: { PATH: process.env.PATH, LANG: 'C.UTF-8' }, cols: 80, rows: 24 });
    term.readAhead?.(64 * 1024);
    const chunks: Buffer[] = [];
    let received = 0;
    term.onData((bytes) => {
      chunks.push(bytes);
      received += bytes.length;
      // a reader that holds the PTY now and then (flow control), like a live viewer
      if (received % 7 === 0) {
        term.pause?.();
        setTimeout(() => term.resume?.(), 2);
      }
    });
    // an event loop busy building answers: the writer fills the kernel's buffer and blocks meanwhile
    const busy = setInterval(() => {
      const until = Date.now() + 5;
      while (Date.now() < until);
    }, 10);
    const exit = await new Promise<TerminalExit>((resolve) => term.onExit(resolve));
    clearInterval(busy);
    expect(exit).toEqual({ exitCode: 0, signal: null });
    const expected = Array.from({ length: 200000 }, (_, i) => `${i + 1}\r\n`).join('');
    expect(Buffer.concat(chunks).toString('latin1')).toBe(expected);
    // it did read ahead (a plain PTY read is at most a few KiB on Linux)
    if (process.platform === 'linux') expect(Math.max(...chunks.map((c) => c.length))).toBeGreaterThan(16 * 1024);
  });

  it('reports an exit code, or the signal by name (never both)', async () => {
    expect((await run('exit 7')).exit).toEqual({ exitCode: 7, signal: null });
    expect((await run('kill -TERM $$')).exit).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect((await run('kill -KILL $$')).exit).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect((await run('kill -HUP $$')).exit).toEqual({ exitCode: null, signal: 'SIGHUP' });
  });

  it('names signals one way', () => {
    expect(signalName(2)).toBe('SIGINT');
    expect(signalName(15)).toBe('SIGTERM');
    expect(signalName(0)).toBeNull();
    expect(signalName(undefined)).toBeNull();
    expect(signalName(250)).toBe('SIG250');
  });

  it('takes typed input and is freed after the exit without signalling anyone', async () => {
    const term = spawnTerminal({ file: '/bin/sh', args: ['-c', 'read line; echo "got $line"'], cwd: os.tmpdir(), env: { PATH: process.env.PATH }, cols: 80, rows: 24 });
    const out: Buffer[] = [];
    term.onData((b) => out.push(b));
    const exited = new Promise<TerminalExit>((r) => term.onExit(r));
    term.write('teal\r');
    expect(await exited).toEqual({ exitCode: 0, signal: null });
    expect(Buffer.concat(out).toString('utf8')).toContain('got teal');
    // after the exit: writes, resizes and destroy are harmless no-ops
    term.write('more\r');
    term.resize(100, 30);
    term.destroy();
  });

  it('hands over the last output before the exit even while paused (a slow viewer) when the program ends', async () => {
    const term = spawnTerminal({ file: '/bin/sh', args: ['-c', 'read line; echo "got $line"; echo last line'], cwd: os.tmpdir(), env: { PATH: process.env.PATH }, cols: 80, rows: 24 });
    const out: Buffer[] = [];
    let exitedYet = false;
    let afterExit = 0;
    term.onData((b) => {
      out.push(b);
      if (exitedYet) afterExit++;
    });
    const exited = new Promise<TerminalExit>((r) =>
      term.onExit((exit) => {
        exitedYet = true;
        r(exit);
      }),
    );
    term.pause?.();
    term.write('teal\r');
    expect(await exited).toEqual({ exitCode: 0, signal: null });
    const text = Buffer.concat(out).toString('utf8');
    expect(text).toContain('got teal');
    expect(text).toContain('last line');
    await new Promise((r) => setTimeout(r, 50));
    expect(afterExit).toBe(0);
  });

  it('ends (with a failure code, not a hang) when the program does not exist', async () => {
    const term = spawnTerminal({ file: '/nonexistent/program', args: [], cwd: os.tmpdir(), env: {}, cols: 80, rows: 24 });
    const exit = await new Promise<TerminalExit>((r) => term.onExit(r));
    expect(exit.signal).toBeNull();
    expect(exit.exitCode).not.toBe(0);
  });
});
