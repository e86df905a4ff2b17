import xtermHeadless from '@xterm/headless';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FLOOD_BYTES, FLOOD_HOLD_MS, MAX_WRITE_BYTES, TerminalFeed, type WritableTerminal } from '../../src-renderer/src/features/terminals/terminal-feed';

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

/** A terminal that parses only when told to: the test decides when each write is done. */
function steppedTerminal() {
  const writes: Uint8Array[] = [];
  const unparsed: Array<() => void> = [];
  const writable: WritableTerminal = {
    write(data, callback) {
      writes.push(typeof data === 'string' ? new TextEncoder().encode(data) : data);
      unparsed.push(callback ?? (() => undefined));
    },
  };
  /** xterm finishes the write it was given. */
  const parse = () => {
    expect(unparsed.length).toBe(1); // never more than one write in xterm at a time
    (unparsed.shift() as () => void)();
  };
  return { writes, writable, parse, sizes: () => writes.map((w) => w.length) };
}

const filled = (n: number, byte = 0x79) => new Uint8Array(n).fill(byte);

describe('TerminalFeed in a flood (fewer, larger writes, so fewer frames drawn)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds large frames that come after a large write until a full write has come or FLOOD_HOLD_MS passed; then the flood is over', () => {
    vi.useFakeTimers();
    const { writable, parse, sizes, writes } = steppedTerminal();
    const feed = new TerminalFeed(writable);
    const acked: string[] = [];
    feed.push(filled(FLOOD_BYTES), () => acked.push('big'));
    expect(sizes()).toEqual([FLOOD_BYTES]); // the first frame of a flood is written at once
    parse();
    expect(acked).toEqual(['big']);

    feed.push(filled(FLOOD_BYTES, 0x61), () => acked.push('a')); // 'a'
    feed.push(filled(200 * 1024), () => acked.push('more'));
    expect(sizes()).toEqual([FLOOD_BYTES]); // held: a flood is on, more is coming, less than a full write has come
    vi.advanceTimersByTime(FLOOD_HOLD_MS - 1);
    expect(sizes()).toEqual([FLOOD_BYTES]);
    vi.advanceTimersByTime(1);
    expect(sizes()).toEqual([FLOOD_BYTES, FLOOD_BYTES + 200 * 1024]); // joined, in order
    expect(writes[1]?.[0]).toBe(0x61);
    expect(writes[1]?.[FLOOD_BYTES]).toBe(0x79);
    expect(acked).toEqual(['big']); // nothing acknowledged before it is parsed
    parse();
    expect(acked).toEqual(['big', 'a', 'more']);

    vi.advanceTimersByTime(FLOOD_HOLD_MS); // nothing came for a while: the flood is over
    feed.push(filled(FLOOD_BYTES), () => acked.push('x')); // even a large frame is not held once it is over
    expect(sizes()).toEqual([FLOOD_BYTES, FLOOD_BYTES + 200 * 1024, FLOOD_BYTES]);
    parse();
    expect(acked.at(-1)).toBe('x');
  });

  it('writes at once when a full write has arrived during a flood, and never more than one write at a time', () => {
    vi.useFakeTimers();
    const { writable, parse, sizes } = steppedTerminal();
    const feed = new TerminalFeed(writable);
    let acked = 0;
    const frame = filled(200 * 1024);
    feed.push(frame, () => acked++);
    parse();
    feed.push(frame, () => acked++);
    feed.push(frame, () => acked++);
    expect(sizes()).toEqual([frame.length]);
    feed.push(frame, () => acked++); // 600 KiB queued: more than a full write
    expect(sizes()).toEqual([frame.length, 2 * frame.length]); // whole frames up to MAX_WRITE_BYTES
    feed.push(frame, () => acked++);
    feed.push(frame, () => acked++);
    feed.push(frame, () => acked++);
    expect(sizes().length).toBe(2); // one write in xterm at a time
    parse();
    expect(sizes().at(-1)).toBe(2 * frame.length); // the queue was over a full write: no hold
    parse();
    vi.advanceTimersByTime(FLOOD_HOLD_MS);
    parse();
    expect(acked).toBe(7);
    expect(sizes().reduce((a, b) => a + b, 0)).toBe(7 * frame.length);
    expect(sizes().every((n) => n <= MAX_WRITE_BYTES)).toBe(true);
  });

  it("a small frame in a flood (the shell paused: a prompt, the flood's last line) is written at once with what was held", () => {
    vi.useFakeTimers();
    const { writable, parse, sizes } = steppedTerminal();
    const feed = new TerminalFeed(writable);
    feed.push(filled(FLOOD_BYTES), () => undefined);
    parse();
    feed.push(filled(100 * 1024), () => undefined);
    expect(sizes()).toEqual([FLOOD_BYTES]); // held
    feed.push(bytes('$ '), () => undefined);
    expect(sizes()).toEqual([FLOOD_BYTES, 100 * 1024 + 2]); // no wait for the hold to run out
  });

  it('small writes never start holding: a stream of short lines is written as it comes', () => {
    vi.useFakeTimers();
    const { writable, parse, sizes } = steppedTerminal();
    const feed = new TerminalFeed(writable);
    for (let i = 0; i < 5; i++) {
      feed.push(bytes(`line ${i}\r\n`), () => undefined);
      expect(sizes().length).toBe(i + 1);
      parse();
    }
  });

  it('a held flood is dropped with the view: stop cancels the hold', () => {
    vi.useFakeTimers();
    const { writable, parse, sizes } = steppedTerminal();
    const feed = new TerminalFeed(writable);
    let acked = 0;
    feed.push(filled(FLOOD_BYTES), () => acked++);
    parse();
    feed.push(filled(FLOOD_BYTES), () => acked++);
    feed.stop();
    vi.advanceTimersByTime(FLOOD_HOLD_MS * 2);
    expect(sizes()).toEqual([FLOOD_BYTES]);
    expect(acked).toBe(1);
  });
});
