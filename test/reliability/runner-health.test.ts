import { describe, expect, it } from 'vitest';
import { RunnerHealth } from '../../src-main/engine/core/runner-health';
import { TICK_RETRY_MAX_MS, TickBackoff } from '../../src-main/engine/graphs/run/tick-backoff';

const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('the runner health a full disk is reported through', () => {
  it('logs one line when a failure starts, none per retry, one when it changes and one when it is over', () => {
    const lines: string[] = [];
    let clock = 0;
    const health = new RunnerHealth(() => `t${clock}`, '/rooms', (l) => lines.push(l));
    for (let i = 0; i < 100; i++) {
      clock++;
      health.failed('graphs', full());
    }
    expect(lines).toEqual(['[graphs] DISK_FULL: no space left on the disk holding /rooms: free space there']);
    expect(health.view()).toEqual({
      state: 'degraded',
      problems: [{ area: 'graphs', code: 'DISK_FULL', message: 'no space left on the disk holding /rooms: free space there', since: 't1', failures: 100 }],
    });
    // a different failure is news; its start time stays the one of the outage
    health.failed('graphs', Object.assign(new Error('disk I/O error\n    at somewhere (file.js:1:1)'), { code: 'SQLITE_IOERR_WRITE' }));
    expect(lines[1]).toBe('[graphs] SQLITE_IOERR_WRITE: disk I/O error');
    expect(health.view()).toMatchObject({ problems: [{ since: 't1', failures: 101 }] });
    health.ok('graphs', 'stage changes are applied');
    health.ok('graphs', 'stage changes are applied');
    expect(lines.slice(2)).toEqual(['[graphs] stage changes are applied again (after 101 failed tries since t1)']);
    expect(health.view()).toEqual({ state: 'ok' });
  });

  it('waits longer after each failed tick, doubling from 250 ms, never more than 15 s', () => {
    const delays = Array.from({ length: 12 }, (_, i) => TickBackoff.delayAfter(i + 1));
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000, 15_000, 15_000, 15_000]);
    expect(TickBackoff.delayAfter(10_000)).toBe(TICK_RETRY_MAX_MS);
  });
});
