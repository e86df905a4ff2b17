import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { isTerminalTask } from '../../common/task-machine';
import type { TaskError, TaskService } from './task-service';
import { JOB_OPERATION } from './operations';

/** Asks the requester for input (elicitations, keyed) and resolves with the answers once every key has one. */
export type InputRequester = (requests: Record<string, unknown>) => Promise<Record<string, unknown>>;

export type JobRun = (signal: AbortSignal, requestInput: InputRequester) => Promise<Record<string, unknown>>;

/** A failure that carries a JSON-RPC error code (anything else fails the task with -32603). */
export class JobError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

interface Waiter {
  requests: Record<string, unknown>;
  collected: Record<string, unknown>;
  resolve: (answers: Record<string, unknown>) => void;
}


/**
 * In-process work run as a task: the row is created (durably) first, the work runs in the background, and its
 * outcome lands on the row. Used by the conformance fixtures; graph runs and handoffs have their own flows
 * over the same task rows. A job lives in this process: after a restart its task reads failed.
 */
export class TaskJobs {
  private readonly aborts = new Map<string, AbortController>();
  private readonly waiters = new Map<string, Waiter>();

  constructor(private readonly tasks: TaskService) {
    tasks.register(JOB_OPERATION, {
      cancel: (caller, task) => {
        this.tasks.transition(task.id, { status: 'cancelled', statusMessage: `cancelled by ${caller.name}` });
        this.aborts.get(task.id)?.abort();
      },
      answerInput: (_caller, task, responses) => this.answer(task.id, responses),
    });
  }

  start(caller: Caller, run: JobRun, options: { ttlMs: number | null; pollIntervalMs: number }) {
    const task = this.tasks.create({ operation: JOB_OPERATION, owner: caller.name, ...options });
    const abort = new AbortController();
    this.aborts.set(task.id, abort);
    const requestInput: InputRequester = (requests) =>
      new Promise((resolve, reject) => {
        if (abort.signal.aborted) return reject(new RoomError('CONFLICT', 'task cancelled'));
        this.waiters.set(task.id, { requests, collected: {}, resolve });
        this.tasks.transition(task.id, { status: 'input_required', statusMessage: 'waiting for input', inputRequests: requests });
      });
    void (async () => {
      try {
        const result = await run(abort.signal, requestInput);
        this.tasks.transition(task.id, { status: 'completed', statusMessage: 'done', result });
      } catch (error) {
        if (abort.signal.aborted) return;
        const err: TaskError =
          error instanceof JobError
            ? { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }
            : { code: -32603, message: error instanceof Error ? error.message : String(error) };
        this.tasks.transition(task.id, { status: 'failed', statusMessage: err.message, error: err });
      } finally {
        this.aborts.delete(task.id);
        this.waiters.delete(task.id);
      }
    })();
    return task;
  }

  /** Ends every job (runner shutdown): their tasks read failed, as after a crash. */
  close(): void {
    for (const [id, abort] of this.aborts) {
      this.tasks.transition(id, { status: 'failed', statusMessage: 'the runner stopped', error: { code: -32603, message: 'the runner stopped' } });
      abort.abort();
    }
  }

  private answer(taskId: string, responses: Record<string, unknown>): void {
    const waiter = this.waiters.get(taskId);
    if (!waiter) return;
    for (const [key, value] of Object.entries(responses)) {
      // unknown keys and keys already answered are ignored
      if (key in waiter.requests && !(key in waiter.collected)) waiter.collected[key] = value;
    }
    const remaining = Object.fromEntries(Object.entries(waiter.requests).filter(([k]) => !(k in waiter.collected)));
    if (Object.keys(remaining).length > 0) {
      this.tasks.transition(taskId, { status: 'input_required', statusMessage: 'waiting for input', inputRequests: remaining });
      return;
    }
    this.waiters.delete(taskId);
    this.tasks.transition(taskId, { status: 'working', statusMessage: 'input received' });
    waiter.resolve(waiter.collected);
  }

  /** Jobs of an earlier process that never ended: they cannot go on, so they read failed. */
  static reconcile(tasks: TaskService, liveIds: () => string[]): number {
    let n = 0;
    for (const id of liveIds()) {
      if (tasks.transition(id, { status: 'failed', statusMessage: 'RUNNER_RESTARTED: the runner stopped while this task ran', error: { code: -32603, message: 'the runner restarted' } })) n++;
    }
    return n;
  }
}

export function isLive(status: Parameters<typeof isTerminalTask>[0]): boolean {
  return !isTerminalTask(status);
}
