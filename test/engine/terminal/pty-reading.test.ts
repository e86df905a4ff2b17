import { describe, expect, it } from 'vitest';
import { readAheadAfter, type SyncRead } from '../../../src-main/engine/terminal/pty-reading';

// The PTY read-ahead reads on synchronously only after a full read (a Linux PTY master gives at most 4095 bytes
// a read while output waits): after a short read nothing more waits, and the read that would follow fails with
// EAGAIN, an exception per line of output. A reader that counts its attempts stands in for the descriptor.

/** A descriptor holding `waiting` bytes, read at most 4095 at a time; once empty, every read throws EAGAIN. */
function descriptor(waiting: number): { read: SyncRead; attempts: () => number; thrown: () => number } {
  let left = waiting;
  let attempts = 0;
  let thrown = 0;
  const read: SyncRead = (_fd, buffer, offset, length) => {
    attempts++;
    if (left === 0) {
      thrown++;
      throw Object.assign(new Error('EAGAIN: resource temporarily unavailable, read'), { code: 'EAGAIN' });
    }
    const n = Math.min(left, length, 4095);
    buffer.fill(0x79, offset, offset + n);
    left -= n;
    return n;
  };
  return { read, attempts: () => attempts, thrown: () => thrown };
}

describe('the PTY read-ahead', () => {
  it('tries no read at all after a short read', () => {
    const fd = descriptor(10_000);
    for (const last of [0, 1, 80, 4094]) expect(readAheadAfter(last, 7, Buffer.alloc(64 * 1024), 0, 64 * 1024, fd.read)).toBe(0);
    expect(fd.attempts()).toBe(0);
  });

  it('after a full read, reads what waits and stops at the first short read, without a read that throws', () => {
    const fd = descriptor(3 * 4095 + 100);
    const buffer = Buffer.alloc(64 * 1024);
    expect(readAheadAfter(4095, 7, buffer, 5, 60 * 1024, fd.read)).toBe(3 * 4095 + 100);
    expect(fd.attempts()).toBe(4);
    expect(fd.thrown()).toBe(0);
    expect(buffer.subarray(5, 5 + 3 * 4095 + 100).every((b) => b === 0x79)).toBe(true);
  });

  it('stops at its budget, and a full read that emptied the descriptor costs one failed read at most', () => {
    const many = descriptor(100_000);
    expect(readAheadAfter(4095, 7, Buffer.alloc(8192), 0, 8192, many.read)).toBe(8192);
    expect(many.attempts()).toBe(3);

    const exact = descriptor(4095);
    expect(readAheadAfter(4095, 7, Buffer.alloc(64 * 1024), 0, 64 * 1024, exact.read)).toBe(4095);
    expect(exact.attempts()).toBe(2);
    expect(exact.thrown()).toBe(1);
  });

  it('with 100 shells writing a line each, tries no read beyond libuv’s own', () => {
    const shells = Array.from({ length: 100 }, () => descriptor(0));
    for (const fd of shells) for (let line = 0; line < 10; line++) readAheadAfter(40, 7, Buffer.alloc(64 * 1024), 40, 64 * 1024, fd.read);
    expect(shells.reduce((n, fd) => n + fd.attempts(), 0)).toBe(0);
  });
});
