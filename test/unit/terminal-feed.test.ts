import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { MAX_WRITE_BYTES, TerminalFeed, type WritableTerminal } from '../../src-renderer/src/features/terminals/terminal-feed';

const { Terminal } = xtermHeadless;

/** A real (headless) xterm.js that records the size of each write it was given. */
function recordingTerminal() {
  const term = new Terminal({ cols: 80, rows: 10, scrollback: 1000, allowProposedApi: true });
  const writes: number[] = [];
  const writable: WritableTerminal = {
    write(data, callback) {
      writes.push(typeof data === 'string' ? data.length : data.length);
      term.write(data, callback);
    },
  };
  const text = () => {
    const lines: string[] = [];
    for (let y = 0; y < term.buffer.active.length; y++) lines.push(term.buffer.active.getLine(y)?.translateToString(true) ?? '');
    return lines.join('\n').trimEnd();
  };
  return { term, writes, writable, text };
}

const bytes = (s: string) => new TextEncoder().encode(s);
/** Polls until xterm parsed what it was given (a loaded machine may take seconds). */
const until = async (check: () => boolean) => {
  const deadline = Date.now() + 20_000;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('TerminalFeed (frames into xterm.js)', { timeout: 30_000 }, () => {
  it('writes a lone frame at once, joins what arrives while one is parsed, and acks each frame once parsed, in order', async () => {
    const { writes, writable, text } = recordingTerminal();
    const feed = new TerminalFeed(writable);
    const acked: string[] = [];
    feed.push(bytes('one\r\n'), () => acked.push('one'));
    expect(writes).toEqual([5]);
    feed.push(bytes('two\r\n'), () => acked.push('two'));
    feed.push(bytes('three\r\n'), () => acked.push('three'));
    feed.note('-- note --\r\n');
    feed.push(bytes('four\r\n'), () => acked.push('four'));
    expect(acked).toEqual([]); // nothing acknowledged before xterm parsed it
    await until(() => acked.length === 4);
    expect(acked).toEqual(['one', 'two', 'three', 'four']);
    expect(writes).toEqual([5, 5 + 7 + 12 + 6]);
    expect(text()).toBe('one\ntwo\nthree\n-- note --\nfour');
  });

  it('cuts a flood into writes of at most MAX_WRITE_BYTES of whole frames, losing nothing', async () => {
    const { writes, writable, term } = recordingTerminal();
    const feed = new TerminalFeed(writable);
    const frame = new Uint8Array(200 * 1024).fill(0x79); // 'y'
    let acked = 0;
    for (let i = 0; i < 8; i++) feed.push(frame, () => acked++);
    await until(() => acked === 8);
    expect(writes.reduce((a, b) => a + b, 0)).toBe(8 * frame.length);
    expect(writes.every((n) => n <= MAX_WRITE_BYTES)).toBe(true);
    expect(writes.length).toBeLessThan(8); // joined, not one write per frame
    term.dispose();
  });

  it('after stop nothing more is written or acknowledged', async () => {
    const { writes, writable } = recordingTerminal();
    const feed = new TerminalFeed(writable);
    let acked = 0;
    feed.push(bytes('a'), () => acked++);
    feed.push(bytes('b'), () => acked++);
    feed.stop();
    feed.push(bytes('c'), () => acked++);
    await new Promise((r) => setTimeout(r, 50));
    expect(writes).toEqual([1]);
    expect(acked).toBe(1); // the write already in xterm finishes; the queued one is dropped with the view
  });
});
