/**
 * How a stage is retried: how many attempts in all, and how long to wait before each next one (the initial
 * backoff, multiplied by `coefficient` per attempt, never more than the maximum). One object per stage, derived
 * from its spec; the runtime asks it and nothing else.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: never retried). */
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  coefficient: number;
}

export interface RetryDefaults {
  /** The wait before the second attempt when the stage names none. */
  initialBackoffMs: number;
  /** The cap on any wait. */
  maxBackoffMs: number;
}

/** A stage spec's `retries` and `retryBackoffMs` as a policy: doubling, capped. */
export function retryPolicyOf(spec: { retries?: number | undefined; retryBackoffMs?: number | undefined }, defaults: RetryDefaults): RetryPolicy {
  return {
    maxAttempts: 1 + Math.max(0, spec.retries ?? 0),
    initialBackoffMs: spec.retryBackoffMs ?? defaults.initialBackoffMs,
    maxBackoffMs: defaults.maxBackoffMs,
    coefficient: 2,
  };
}

/** Whether attempt `attempt` (1, 2, …), having failed in a retryable way, gets another one. */
export function hasAttemptAfter(policy: RetryPolicy, attempt: number): boolean {
  return attempt < policy.maxAttempts;
}

/** The wait before attempt `nextAttempt` (2, 3, …): initial × coefficient^(nextAttempt − 2), capped. */
export function backoffBeforeAttempt(policy: RetryPolicy, nextAttempt: number): number {
  const exponent = Math.min(Math.max(0, nextAttempt - 2), 60);
  return Math.min(policy.maxBackoffMs, policy.initialBackoffMs * policy.coefficient ** exponent);
}
