import { describe, expect, it } from 'vitest';
import { ScrollbackRing } from '../../../src-main/engine/shells/scrollback-ring';

const text = (r: { bytes: Buffer }) => r.bytes.toString('utf8');

describe('ScrollbackRing', () => {
  it('reads back what was appended, by absolute cursor', () => {
    const ring = new ScrollbackRing(16);
    ring.append(Buffer.from('hello '));
    ring.append(Buffer.from('world'));
    expect(ring.read(0, 100)).toMatchObject({ start: 0, next: 11, truncated: false, more: false });
    expect(text(ring.read(6, 100))).toBe('world');
    expect(ring.read(0, 5)).toMatchObject({ next: 5, more: true });
    expect(text(ring.read(11, 5))).toBe('');
  });

  it('keeps only the newest `capacity` bytes and says when a cursor fell out', () => {
    const ring = new ScrollbackRing(8);
    for (const part of ['0123', '4567', '89ab', 'cd']) ring.append(Buffer.from(part));
    expect(ring.start).toBe(6);
    expect(ring.end).toBe(14);
    const r = ring.read(0, 100);
    expect(r).toMatchObject({ start: 6, next: 14, truncated: true });
    expect(text(r)).toBe('6789abcd');
    expect(ring.read(6, 100).truncated).toBe(false);
  });

  it('takes a single chunk larger than itself', () => {
    const ring = new ScrollbackRing(8);
    ring.append(Buffer.from('abc'));
    ring.append(Buffer.from('0123456789xyz'));
    expect(text(ring.read(0, 100))).toBe('56789xyz');
    ring.append(Buffer.from('!'));
    expect(text(ring.read(0, 100))).toBe('6789xyz!');
  });

  it('never splits a multi-byte character at either end of a read', () => {
    const ring = new ScrollbackRing(64);
    const s = 'a😀漢é';
    const bytes = Buffer.from(s);
    // feed one byte at a time, like a PTY that cuts anywhere
    for (const b of bytes) ring.append(Buffer.from([b]));
    let cursor = 0;
    let out = '';
    for (let guard = 0; guard < 50 && cursor < ring.end; guard++) {
      const r = ring.read(cursor, 3); // a window smaller than the emoji
      if (r.next === cursor) {
        // a 4-byte character cannot fit in 3 bytes: the reader has to ask for more
        const wider = ring.read(cursor, 4);
        out += text(wider);
        cursor = wider.next;
        continue;
      }
      out += text(r);
      cursor = r.next;
    }
    expect(out).toBe(s);
    expect(out).not.toContain('\uFFFD');
  });

  it('holds back a character whose last bytes have not arrived yet', () => {
    const ring = new ScrollbackRing(64);
    const euro = Buffer.from('€'); // 3 bytes
    ring.append(Buffer.from('x'));
    ring.append(euro.subarray(0, 2));
    const first = ring.read(0, 100);
    expect(text(first)).toBe('x');
    expect(first.next).toBe(1);
    ring.append(euro.subarray(2));
    expect(text(ring.read(first.next, 100))).toBe('€');
  });

  it('skips the tail of a character the ring cut in half', () => {
    const ring = new ScrollbackRing(4);
    ring.append(Buffer.from('ab€cd')); // 7 bytes: the ring keeps the last 4, starting inside '€'
    const r = ring.read(0, 100);
    expect(text(r)).toBe('cd');
    expect(r.truncated).toBe(true);
  });
  it('readText answers the same range and text as read, also across the buffer end and mid-character', () => {
    const ring = new ScrollbackRing(16);
    const samples = ['ab', '😀', 'cdé', '漢字', 'x', '😀😀', 'yz'];
    for (let round = 0; round < 12; round++) {
      ring.append(Buffer.from(samples[round % samples.length]!));
      for (let cursor = 0; cursor <= ring.end; cursor++) {
        for (const max of [1, 3, 7, 16]) {
          const { bytes, ...range } = ring.read(cursor, max);
          expect(ring.readText(cursor, max)).toEqual({ ...range, text: bytes.toString('utf8') });
        }
      }
    }
  });

  it('readView answers the same range and bytes as read, a view of the ring unless the range wraps', () => {
    const ring = new ScrollbackRing(16);
    const samples = ['ab', '😀', 'cdé', '漢字', 'x', '😀😀', 'yz'];
    let views = 0;
    for (let round = 0; round < 12; round++) {
      ring.append(Buffer.from(samples[round % samples.length]!));
      for (let cursor = 0; cursor <= ring.end; cursor++) {
        for (const max of [1, 3, 7, 16]) {
          const copied = ring.read(cursor, max);
          const view = ring.readView(cursor, max);
          expect(view).toEqual(copied);
          // a view shares the ring's memory: the next read of the same range gives the same memory again
          if (view.bytes.length > 0 && view.bytes.buffer === ring.readView(cursor, max).bytes.buffer && view.bytes.buffer !== copied.bytes.buffer) views++;
        }
      }
    }
    expect(views).toBeGreaterThan(0);
  });

  it('keeps the newest `capacity` bytes exactly across the chunks it grows by (a stream of any sizes and characters)', () => {
    const ring = new ScrollbackRing(100_000);
    let all = Buffer.alloc(0);
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 400; i++) {
      const part = Buffer.from('é漢😀abc\n'.repeat(1 + random(300)).slice(random(5)));
      ring.append(part);
      all = Buffer.concat([all, part]);
      if (i % 40 !== 0) continue;
      expect(ring.start).toBe(Math.max(0, all.length - 100_000));
      const cursor = ring.start + random(ring.end - ring.start);
      const r = ring.read(cursor, 1 + random(50_000));
      // the range may move off a character's middle at either end: the bytes are the stream's own
      expect(r.bytes.equals(all.subarray(r.start, r.next))).toBe(true);
      expect(ring.readText(cursor, 60_000).text).toBe(all.subarray(ring.readText(cursor, 60_000).start, ring.readText(cursor, 60_000).next).toString('utf8'));
    }
    expect(ring.allocated).toBeLessThanOrEqual(100_000 + 3 * 16 * 1024);
  });

  it('grows with the output, not to its capacity at once', () => {
    const ring = new ScrollbackRing(2 * 1024 * 1024, 10_000);
    expect(ring.allocated).toBe(0);
    ring.append(Buffer.from('$ '));
    // a shell at its prompt holds its prompt (tmux holds ~5 KiB a window), not a whole chunk
    expect(ring.allocated).toBeLessThanOrEqual(1024);
    const lines: string[] = [];
    for (let i = 0; i < 1000; i++) {
      lines.push(`line ${i} of some output\n`);
      ring.append(Buffer.from(lines.at(-1) as string));
      // a view handed out before the newest chunk grows keeps its bytes
      const view = ring.readView(ring.end - 10, 10);
      expect(view.bytes.toString()).toBe(lines.at(-1)?.slice(-10));
    }
    expect(ring.allocated).toBeLessThanOrEqual(48 * 1024);
    expect(ring.readText(0, 1024 * 1024).text).toBe(`$ ${lines.join('')}`);
  });

  it('starts its newest chunk mid-way after an append larger than its capacity, and grows it as it fills', () => {
    const ring = new ScrollbackRing(20_000);
    const big = Buffer.from('y'.repeat(50_001));
    ring.append(big);
    expect(ring.start).toBe(30_001);
    let all = big.toString().slice(30_001);
    for (let i = 0; i < 300; i++) {
      const line = `more ${i}\n`;
      ring.append(Buffer.from(line));
      all = (all + line).slice(-20_000);
    }
    expect(ring.readText(ring.start, 1024 * 1024).text).toBe(all);
  });

  it('keeps the newest `maxLines` lines (and the line being written), and says a cursor before them fell out', () => {
    const ring = new ScrollbackRing(1024 * 1024, 1000);
    for (let i = 0; i < 5000; i++) ring.append(Buffer.from(`line ${i}\n`));
    ring.append(Buffer.from('$ partial'));
    const r = ring.readText(0, 1024 * 1024);
    expect(r.truncated).toBe(true);
    expect(r.text.split('\n')).toHaveLength(1001);
    expect(r.text.startsWith('line 4000\n')).toBe(true);
    expect(r.text.endsWith('line 4999\n$ partial')).toBe(true);
    // the memory of the lines let go is let go too
    expect(ring.allocated).toBeLessThanOrEqual(32 * 1024);
  });

  it('keeps the byte cap for long lines whatever the line cap', () => {
    const ring = new ScrollbackRing(64 * 1024, 1000);
    for (let i = 0; i < 100; i++) ring.append(Buffer.from(`${String(i).padStart(3, '0')}${'x'.repeat(4092)}\n`));
    expect(ring.end - ring.start).toBe(64 * 1024);
    const lines = ring.readText(ring.start, 1024 * 1024).text.split('\n');
    expect(lines.at(-2)?.startsWith('099')).toBe(true);
    // once the lines are short again, the line cap counts only what the byte cap kept
    for (let i = 0; i < 999; i++) ring.append(Buffer.from('y\n'));
    expect(ring.readText(ring.start, 1024 * 1024).text.split('\n').filter((l) => l.startsWith('0'))).toHaveLength(1);
    ring.append(Buffer.from('y\n'));
    expect(ring.readText(ring.start, 1024 * 1024).text).toBe('y\n'.repeat(1000));
  });

  it('lets the line cap drop nothing a live viewer has not read yet (the byte cap still holds)', () => {
    let viewer = 0;
    const ring = new ScrollbackRing(64 * 1024, 10, () => viewer);
    for (let i = 0; i < 100; i++) ring.append(Buffer.from(`line ${i}\n`));
    expect(ring.start).toBe(0);
    viewer = ring.end;
    ring.append(Buffer.from('line 100\n'));
    expect(ring.readText(ring.start, 4096).text.split('\n')).toHaveLength(11);
  });
});
