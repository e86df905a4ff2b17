import { describe, expect, it } from 'vitest';
import { backoffBeforeAttempt, hasAttemptAfter, retryPolicyOf, type RetryPolicy } from '../../src-main/common/graphs/retry-policy';

const defaults = { initialBackoffMs: 1000, maxBackoffMs: 60_000 };

describe('a stage retry policy', () => {
  it.each([
    // spec                                  attempts initial   max     coefficient
    [{}, 1, 1000, 60_000, 2],
    [{ retries: 0 }, 1, 1000, 60_000, 2],
    [{ retries: 3 }, 4, 1000, 60_000, 2],
    [{ retries: 2, retryBackoffMs: 250 }, 3, 250, 60_000, 2],
    [{ retries: 1, retryBackoffMs: 0 }, 2, 0, 60_000, 2],
  ] as const)('is derived from the stage spec %j', (spec, maxAttempts, initialBackoffMs, maxBackoffMs, coefficient) => {
    expect(retryPolicyOf(spec, defaults)).toEqual({ maxAttempts, initialBackoffMs, maxBackoffMs, coefficient });
  });

  const policy: RetryPolicy = { maxAttempts: 12, initialBackoffMs: 500, maxBackoffMs: 10_000, coefficient: 2 };
  it.each([
    // the attempt about to start, and the wait before it: doubling from the initial backoff, capped
    [2, 500],
    [3, 1000],
    [4, 2000],
    [5, 4000],
    [6, 8000],
    [7, 10_000],
    [12, 10_000],
    [1000, 10_000],
  ])('waits before attempt %i: %i ms', (next, wait) => {
    expect(backoffBeforeAttempt(policy, next)).toBe(wait);
  });

  it('never waits when the stage asks for no backoff, and never more than the cap even when the cap is below the initial wait', () => {
    expect(backoffBeforeAttempt({ ...policy, initialBackoffMs: 0 }, 9)).toBe(0);
    expect(backoffBeforeAttempt({ ...policy, initialBackoffMs: 50_000 }, 2)).toBe(10_000);
  });

  it.each([
    [1, 1, false],
    [3, 1, true],
    [3, 2, true],
    [3, 3, false],
  ])('with %i attempts in all, attempt %i has another after it: %s', (maxAttempts, attempt, more) => {
    expect(hasAttemptAfter({ ...policy, maxAttempts }, attempt)).toBe(more);
  });
});
