import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Live } from '../../../src-main/engine/graphs/run/attempt-supervisor';
import { PendingPids } from '../../../src-main/engine/graphs/run/pending-pids';

/** Just what PendingPids reads of an attempt: its handle's pid. */
const attempt = (pid: number | null) => ({ graphId: 'g', stageId: `s${pid}`, attempt: 1, handle: { pid, startTime: null } }) as unknown as Live;

describe("started attempts' pids waiting for a tick to write them", () => {
  let ticks: number;
  let pids: PendingPids;
  beforeEach(() => {
    vi.useFakeTimers();
    ticks = 0;
    pids = new PendingPids(() => ticks++);
  });
  afterEach(() => {
    pids.close();
    vi.useRealTimers();
  });

  it('brings a tick within 50 ms when none came', () => {
    pids.add([attempt(10)]);
    vi.advanceTimersByTime(49);
    expect(ticks).toBe(0);
    vi.advanceTimersByTime(1);
    expect(ticks).toBe(1);
  });

  it('brings no tick of its own once a tick took them all (a tick every 50 ms while stages kept starting, before)', () => {
    pids.add([attempt(10), attempt(11)]);
    vi.advanceTimersByTime(20);
    const { known, waiting } = pids.take(() => true);
    expect(known.map((l) => l.handle.pid)).toEqual([10, 11]);
    expect(waiting).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(ticks).toBe(0);
  });

  it('waits again, a full 50 ms, for an attempt whose pid was not known yet when a tick took it', () => {
    const pending = attempt(null);
    pids.add([pending]);
    const { known, waiting } = pids.take(() => true);
    expect(known).toEqual([]);
    expect(waiting).toEqual([pending]);
    pids.add(waiting);
    vi.advanceTimersByTime(50);
    expect(ticks).toBe(1);
  });

  it('drops an attempt that ended before its pid was known; puts back what a failed tick took, first in line', () => {
    pids.add([attempt(null)]);
    expect(pids.take(() => false)).toEqual({ known: [], waiting: [] });
    const first = attempt(20);
    pids.add([attempt(21)]);
    pids.putBack([first]);
    expect(pids.take(() => true).known.map((l) => l.handle.pid)).toEqual([20, 21]);
  });
});
