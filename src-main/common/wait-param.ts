import { z } from 'zod';
import { LIMITS } from './limits';

/**
 * The long-poll parameter of every read that can wait instead of answering at once (tasks_status,
 * handoff_get): whole milliseconds, at most maxStatusWaitMs; `what` says what ends the wait early.
 */
export function waitMsParam(what: string) {
  return z.number().int().min(0).max(LIMITS.maxStatusWaitMs).describe(`answer as soon as ${what}, waiting at most this long (at most ${LIMITS.maxStatusWaitMs} ms)`);
}
