import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { spawnTerminal, type Terminal } from '../../../src-main/engine/terminal/pty';

// Every terminal's master is read into one buffer the room shares (pty-reading.ts: a shell no longer keeps its
// own 128 KiB): each read is handed over before the next descriptor is read. Four terminals flooding at once,
// each with its own letter, must each deliver exactly their own bytes, none of another's, none lost.

const BYTES = 3_000_000;

function flood(letter: string): { term: Terminal; done: Promise<{ count: number; foreign: number }> } {
  const term = spawnTerminal({ file: '/bin/sh', args: ['-c', `head -c ${BYTES} /dev/zero | tr '\\0' ${letter}`], cwd: os.tmpdir(), env: process.env, cols: 80, rows: 24 });
  term.readAhead?.(64 * 1024);
  const code = letter.charCodeAt(0);
  let count = 0;
  let foreign = 0;
  // a borrowing listener, as the shell's ring is: it gets a view of the shared buffer, valid during the call
  term.onData(
    (view) => {
      for (const b of view) {
        if (b === code) count++;
        else foreign++;
      }
    },
    { borrow: true },
  );
  const done = new Promise<{ count: number; foreign: number }>((resolve) => term.onExit(() => resolve({ count, foreign })));
  return { term, done };
}

describe('the shared read buffer', () => {
  it('four terminals flooding at once each deliver exactly their own output', { timeout: 120_000 }, async () => {
    const floods = ['a', 'b', 'c', 'd'].map(flood);
    const results = await Promise.all(floods.map((f) => f.done));
    for (const f of floods) f.term.destroy();
    for (const r of results) expect(r).toEqual({ count: BYTES, foreign: 0 });
  });
});
