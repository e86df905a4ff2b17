import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { IdleCollect, reduceMemory } from '../../src-main/server/idle-collect';

const MiB = 1024 * 1024;

/** A check `ms` after the last, the process having used `cpuMs` of CPU meanwhile, its heap at `heapMiB`. */
function checker(options = {}) {
  const decide = new IdleCollect(options);
  let at = 0;
  let cpuUs = 0;
  return {
    decide,
    check(ms: number, cpuMs: number, heapMiB: number) {
      at += ms;
      cpuUs += cpuMs * 1000;
      return decide.check({ atMs: at, cpuUs, heapBytes: heapMiB * MiB });
    },
    collected(heapMiB: number) {
      decide.collected(heapMiB * MiB, cpuUs, at);
    },
  };
}

describe('a quiet room hands back what its last burst left in the heap', () => {
  it('collects once the process has been quiet for two checks after its heap grew, and not again until it grows again', () => {
    const c = checker();
    expect(c.check(0, 0, 20)).toBe(false); // the first sample: what growth is measured from
    // a burst of work: busy, and the heap grows (V8 collects a busy room by itself)
    expect(c.check(5000, 4000, 30)).toBe(false);
    expect(c.check(5000, 3000, 45)).toBe(false);
    // quiet: one check is not a spell yet, two are
    expect(c.check(5000, 20, 45)).toBe(false);
    expect(c.check(5000, 20, 45)).toBe(true);
    c.collected(22);
    // still quiet, nothing new: no collection every few seconds
    for (let i = 0; i < 10; i++) expect(c.check(5000, 10, 22)).toBe(false);
    // a little growth while quiet is not worth a collection; a burst's is
    expect(c.check(5000, 10, 23)).toBe(false);
    expect(c.check(5000, 2000, 30)).toBe(false);
    expect(c.check(5000, 10, 30)).toBe(false);
    expect(c.check(5000, 10, 30)).toBe(true);
  });

  it('never collects while the process stays busy, however the heap grows', () => {
    const c = checker();
    c.check(0, 0, 20);
    for (let i = 0; i < 20; i++) expect(c.check(5000, 1000, 20 + i * 5)).toBe(false);
  });

  it('measures growth from the lowest the heap fell to (V8 collected by itself meanwhile)', () => {
    const c = checker();
    c.check(0, 0, 40);
    c.check(5000, 3000, 25); // V8's own collection after the start: the heap is smaller than at the first sample
    expect(c.check(5000, 0, 26)).toBe(false);
    expect(c.check(5000, 0, 26)).toBe(false);
    expect(c.check(5000, 3000, 30)).toBe(false);
    expect(c.check(5000, 0, 30)).toBe(false);
    expect(c.check(5000, 0, 30)).toBe(true);
  });

  it('gives the heap back: garbage a burst left is collected and its pages released', async () => {
    let kept: number[][] | null = [];
    // ~80 MiB of arrays that live long enough to reach the old generation, then are garbage
    for (let i = 0; i < 2000; i++) kept.push(new Array(5000).fill(i));
    const before = v8.getHeapStatistics().total_physical_size;
    expect(kept.length).toBe(2000);
    kept = null;
    await reduceMemory();
    expect(v8.getHeapStatistics().total_physical_size).toBeLessThan(before - 32 * 1024 * 1024);
    // and again: each collection's session is let go cleanly (disconnecting inside its callback blocked the thread)
    await reduceMemory();
  });
});
