import { describe, expect, it } from 'vitest';
import { parseResetTime } from '../../../src-main/engine/agents/reset-time';

/** The reset times the CLIs print (their limit messages: test/fixtures/limit-screens/), read as instants. */
describe('a limit message’s reset time', () => {
  const now = new Date('2026-12-05T06:50:00Z');
  const at = (words: string) => parseResetTime(words, now)?.toISOString() ?? null;

  it('reads a clock time in a named zone as the next one after now', () => {
    expect(at('3am (Europe/London)')).toBe('2026-12-06T03:00:00.000Z');
    expect(at('3:15pm (America/New_York)')).toBe('2026-12-05T20:15:00.000Z');
    expect(at('6am (Asia/Tokyo)')).toBe('2026-12-05T21:00:00.000Z');
    expect(at('Dec 6, 3am (UTC)')).toBe('2026-12-06T03:00:00.000Z');
  });

  it('reads a wait from now', () => {
    expect(at('in 2h 30m')).toBe('2026-12-05T09:20:00.000Z');
    expect(at('21.5s')).toBe('2026-12-05T06:50:21.500Z');
    expect(at('in 5 days 2 hours 3 minutes')).toBe('2026-12-10T08:53:00.000Z');
    // opencode's countdown to its own retry: "2h 59m", "1m 5s", and whole days or weeks past one day
    expect(at('2h 59m attempt #1]')).toBe('2026-12-05T09:49:00.000Z');
    expect(at('~2 days attempt #1]')).toBe('2026-12-07T06:50:00.000Z');
    expect(at('~1 week attempt #1]')).toBe('2026-12-12T06:50:00.000Z');
  });

  it('reads a bare clock time in the room’s own zone', () => {
    const local = parseResetTime('3:00 AM', now) as Date;
    expect(local.getHours()).toBe(3);
    expect(local.getMinutes()).toBe(0);
    expect(local.getTime()).toBeGreaterThan(now.getTime());
    expect(local.getTime() - now.getTime()).toBeLessThanOrEqual(86_400_000);
    expect(parseResetTime('03:00', now)?.getTime()).toBe(local.getTime());
  });

  it('gives none for words without a time', () => {
    expect(at('later')).toBeNull();
    expect(at('soon, try again')).toBeNull();
  });
});
