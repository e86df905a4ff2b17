import { backoffBeforeAttempt, hasAttemptAfter, type RetryPolicy } from '../../../common/graphs/retry-policy';
import { classifyExit, isRetryable, type StageErrorCode, type StageState } from '../../../common/graphs/stage-machine';
import type { StageChange, StageRecord } from '../../store/graphs';
import { describeEnd, type AttemptEnd } from './stage-runner';

/** What an attempt's end means for its stage: another attempt after a backoff, or the stage's end. */
export type AttemptOutcome =
  | { kind: 'retry'; why: string; delay: number; errorCode: StageErrorCode; change: StageChange }
  | { kind: 'end'; why: string; state: StageState; errorCode: StageErrorCode | null; change: StageChange };

/**
 * Decides what an ended attempt leads to: a retryable failure with attempts left (and its graph not being
 * cancelled) waits `delay` and runs again; anything else ends the stage with its exit code, signal and reason.
 */
export function outcomeOf(s: StageRecord, e: AttemptEnd, policy: RetryPolicy, graphCancelling: boolean): AttemptOutcome {
  const c = classifyAttempt(e);
  const why = describeEnd(e, c.errorCode);
  if (c.state === 'failed' && c.errorCode !== null && isRetryable(c.errorCode) && hasAttemptAfter(policy, s.attempt) && !graphCancelling) {
    const delay = backoffBeforeAttempt(policy, s.attempt + 1);
    return {
      kind: 'retry',
      why,
      delay,
      errorCode: c.errorCode,
      change: {
        pid: null,
        pidStart: null,
        exitCode: e.code,
        signal: e.signal,
        errorCode: c.errorCode,
        message: `attempt ${s.attempt} of ${s.maxAttempts} ${why}; retrying in ${delay} ms`,
      },
    };
  }
  const message = e.endedBy === 'service-stop' ? 'stopped after every stage that needed it ended' : c.state === 'completed' ? null : why;
  return { kind: 'end', why, state: c.state, errorCode: c.errorCode, change: { exitCode: e.code, signal: e.signal, message } };
}

/** How an attempt ended: never started, lost by the runner (and not ended on purpose), or by its exit. */
function classifyAttempt(e: AttemptEnd): { state: StageState; errorCode: StageErrorCode | null } {
  if (e.spawnError !== undefined) return { state: 'failed', errorCode: 'SPAWN_FAILED' };
  if (e.lost !== undefined && e.endedBy === undefined) return { state: 'failed', errorCode: 'RUNNER_RESTARTED' };
  return classifyExit(e);
}

/** The row change that marks a stage running for `attempt` (a first attempt or a retry), before any process exists. */
export function startingChange(s: StageRecord, attempt: number, procTag: string, at: string): StageChange {
  return {
    state: 'running',
    attempt,
    procTag,
    startedAt: s.startedAt ?? at,
    ready: false,
    // a retry starts clean: the previous attempt's failure stays in the log, not on the running stage
    errorCode: null,
    exitCode: null,
    signal: null,
    message: attempt > 1 ? `attempt ${attempt} of ${s.maxAttempts} (${s.message ?? 'after a failure'})` : null,
  };
}
