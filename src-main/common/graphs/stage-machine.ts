import { RoomError } from '../errors';

/** A stage's states. `skipped`: an upstream did not complete, so it never ran. */
export const STAGE_STATES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'skipped'] as const;
export type StageState = (typeof STAGE_STATES)[number];

/** Why a stage did not complete. */
export const STAGE_ERROR_CODES = [
  'EXIT_NONZERO',
  'SIGNAL',
  'TIMEOUT',
  'SPAWN_FAILED',
  'UPSTREAM_FAILED',
  'CANCELLED',
  'RUNNER_RESTARTED',
  // the runner could not write the stage's log (no space left; another I/O error) and ended it
  'DISK_FULL',
  'LOG_WRITE_FAILED',
] as const;
export type StageErrorCode = (typeof STAGE_ERROR_CODES)[number];

export const GRAPH_STATES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export type GraphState = (typeof GRAPH_STATES)[number];

const TERMINAL: ReadonlySet<StageState> = new Set(['completed', 'failed', 'cancelled', 'skipped']);

export function isTerminalStage(state: StageState): boolean {
  return TERMINAL.has(state);
}

/** Has a graph or a stage ended? Only `pending` and `running` have not. */
export function hasEnded(state: GraphState | StageState): boolean {
  return state !== 'pending' && state !== 'running';
}

const ALLOWED: Record<StageState, readonly StageState[]> = {
  pending: ['running', 'cancelled', 'skipped'],
  // running → running is a retry (a new attempt)
  running: ['running', 'completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
  skipped: [],
};

/** The one rule for stage transitions. */
export function nextStageState(current: StageState, next: StageState): StageState {
  if (!ALLOWED[current].includes(next)) {
    throw new RoomError('CONFLICT', isTerminalStage(current) ? `the stage already ended (${current})` : `a ${current} stage cannot become ${next}`, {
      state: current,
    });
  }
  return next;
}

/**
 * A graph's state, derived from its stages, never stored independently of them. Any failure makes the graph
 * failed (a skipped stage never counts as success); otherwise any cancel or skip makes it cancelled.
 */
export function deriveGraphState(states: readonly StageState[]): GraphState {
  if (states.some((s) => !isTerminalStage(s))) return states.every((s) => s === 'pending') ? 'pending' : 'running';
  if (states.some((s) => s === 'failed')) return 'failed';
  if (states.some((s) => s === 'cancelled' || s === 'skipped')) return 'cancelled';
  return 'completed';
}

export interface StageExit {
  code: number | null;
  signal: string | null;
  /** Why the runner ended it, when it did. */
  endedBy?: 'cancel' | 'timeout' | 'service-stop' | 'readiness-timeout' | 'disk-full' | 'log-failed' | undefined;
}

/** How an attempt's end reads: the state it leads to and why. */
export function classifyExit(exit: StageExit): { state: StageState; errorCode: StageErrorCode | null } {
  if (exit.endedBy === 'cancel') return { state: 'cancelled', errorCode: 'CANCELLED' };
  if (exit.endedBy === 'timeout' || exit.endedBy === 'readiness-timeout') return { state: 'failed', errorCode: 'TIMEOUT' };
  // output nobody can read back is not a result anyone can trust: the stage fails and says why
  if (exit.endedBy === 'disk-full') return { state: 'failed', errorCode: 'DISK_FULL' };
  if (exit.endedBy === 'log-failed') return { state: 'failed', errorCode: 'LOG_WRITE_FAILED' };
  // a long-running stage the runner stopped because nothing needs it any more did its job
  if (exit.endedBy === 'service-stop') return { state: 'completed', errorCode: null };
  if (exit.code === 0) return { state: 'completed', errorCode: null };
  if (exit.signal !== null) return { state: 'failed', errorCode: 'SIGNAL' };
  return { state: 'failed', errorCode: 'EXIT_NONZERO' };
}

/**
 * Failures that another attempt may fix. A cancel, an upstream failure or a restart is never retried, nor a
 * log that could not be written (another attempt on the same full disk would fail the same way).
 */
export function isRetryable(code: StageErrorCode | null): boolean {
  return code === 'EXIT_NONZERO' || code === 'SIGNAL' || code === 'TIMEOUT' || code === 'SPAWN_FAILED';
}
