import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { Listeners } from '../../../src-main/engine/shells/listeners';
import { spawnTerminal, watchedTerminal, type TerminalExit } from '../../../src-main/engine/terminal/pty';

describe("a shell's listeners, made with the first one (listeners.ts)", () => {
  it('tells every listener, in order, and a listener added or removed while told hears the next one, not this one', () => {
    const heard: string[] = [];
    const changes = new Listeners<[number]>();
    changes.emit(0); // none yet: nothing happens
    const offA = changes.add((n) => heard.push(`a${n}`));
    changes.add((n) => {
      heard.push(`b${n}`);
      if (n === 1) {
        offA();
        changes.add((m) => heard.push(`c${m}`));
      }
    });
    changes.emit(1);
    changes.emit(2);
    expect(heard).toEqual(['a1', 'b1', 'b2', 'c2']);
    expect(changes.size).toBe(2);
  });
});

describe("a graph stage's terminal as its shell sees it (watchedTerminal)", () => {
  it('reads, writes and ends with the terminal, and never frees it: its owner does', async () => {
    const term = spawnTerminal({ file: '/bin/sh', args: ['-c', 'read line; echo "got $line"'], cwd: os.tmpdir(), env: { PATH: process.env.PATH }, cols: 80, rows: 24 });
    const watched = watchedTerminal(term);
    expect(watched.pid).toBe(term.pid);
    expect(typeof watched.pause).toBe('function');
    const chunks: Buffer[] = [];
    watched.onData((bytes) => chunks.push(Buffer.from(bytes)));
    const exited = new Promise<TerminalExit>((resolve) => watched.onExit(resolve));
    watched.destroy(); // nothing: the terminal still runs and still takes input
    watched.write('hello\r');
    expect(await exited).toEqual({ exitCode: 0, signal: null });
    expect(Buffer.concat(chunks).toString('utf8')).toContain('got hello');
    term.destroy();
  });
});
