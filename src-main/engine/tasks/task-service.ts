import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { isTerminalTask, nextTaskStatus } from '../../common/task-machine';
import type { EngineContext } from '../feature';
import type { TaskRecord } from '../store/tasks';
import { canSeeTask } from './task-visibility';

/** What a kind of task (its `operation`) tells the task layer so every door can serve it the same way. */
export interface TaskOperation {
  /** Stops the work behind a live task and leaves the task cancelled (or otherwise terminal). */
  cancel(caller: Caller, task: TaskRecord): Promise<void> | void;
  /** Answers outstanding input requests; unknown or already-answered keys are ignored. */
  answerInput?(caller: Caller, task: TaskRecord, responses: Record<string, unknown>): Promise<void> | void;
  /** Who may see the task besides its owner and assignee. Default: the one task rule (task-visibility.ts). */
  visibleTo?(caller: Caller, task: TaskRecord): boolean;
  /** What tasks/result (and a 2026 completed task) carries: the tool result the original call would have had. */
  resultOf?(task: TaskRecord): Record<string, unknown>;
}

export const UNKNOWN_TASK = 'unknown task';

/** A JSON-RPC error a task ended with. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * The one task layer over the room's task rows, whatever created them. Visibility is decided here once:
 * a task nobody may see and a task that does not exist give the same answer.
 */
export class TaskService {
  private readonly operations = new Map<string, TaskOperation>();

  constructor(private readonly ctx: EngineContext) {}

  register(operation: string, handler: TaskOperation): void {
    this.operations.set(operation, handler);
  }

  canSee(caller: Caller, task: TaskRecord): boolean {
    if (task.owner === caller.name || task.assignee === caller.name) return true;
    const op = this.operations.get(task.operation);
    return op?.visibleTo ? op.visibleTo(caller, task) : canSeeTask(caller, task);
  }

  get(caller: Caller, taskId: string): TaskRecord {
    const task = this.ctx.room.tasks.get(taskId);
    if (!task || !this.canSee(caller, task)) throw new RoomError('NOT_FOUND', UNKNOWN_TASK);
    return task;
  }

  /** The caller's own tasks (owner or assignee), newest first, with an opaque cursor. */
  list(caller: Caller, cursor: string | undefined, limit: number): { tasks: TaskRecord[]; nextCursor?: string } {
    let before: { createdAt: string; id: string } | undefined;
    if (cursor !== undefined) {
      try {
        const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
        if (!Array.isArray(parsed) || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') throw new Error('shape');
        before = { createdAt: parsed[0], id: parsed[1] };
      } catch {
        throw new RoomError('INVALID_INPUT', 'invalid cursor: pass back the nextCursor of a previous answer');
      }
    }
    const rows = this.ctx.room.tasks.listFor(caller.name, { limit: limit + 1, ...(before ? { before } : {}) });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return rows.length > limit && last
      ? { tasks: page, nextCursor: Buffer.from(JSON.stringify([last.createdAt, last.id])).toString('base64url') }
      : { tasks: page };
  }

  /** Cancels a live task (the work stops, the task reads cancelled); an ended one is refused, naming its state. */
  async cancel(caller: Caller, taskId: string): Promise<TaskRecord> {
    const task = this.get(caller, taskId);
    this.requireWrite(caller, 'cancel a task');
    if (isTerminalTask(task.status)) {
      throw new RoomError('CONFLICT', `Cannot cancel task: already in terminal status '${task.status}'`, { status: task.status });
    }
    const op = this.operations.get(task.operation);
    if (op) await op.cancel(caller, task);
    const after = this.ctx.room.tasks.get(taskId);
    if (after && !isTerminalTask(after.status)) {
      // the operation did not end it: the task record still must read cancelled before we answer
      this.finish(taskId, { status: 'cancelled', statusMessage: `cancelled by ${caller.name}` });
    }
    return this.get(caller, taskId);
  }

  async answerInput(caller: Caller, taskId: string, responses: Record<string, unknown>): Promise<void> {
    const task = this.get(caller, taskId);
    this.requireWrite(caller, "answer a task's input");
    const op = this.operations.get(task.operation);
    if (!op?.answerInput) throw new RoomError('INVALID_INPUT', 'this task does not take input');
    if (task.status !== 'input_required') return; // stale answers are ignored
    await op.answerInput(caller, task, responses);
  }

  /** Changing a task is a write, whichever door it comes through (tools need `write` too). */
  private requireWrite(caller: Caller, what: string): void {
    if (!caller.capabilities.includes('write')) throw new RoomError('FORBIDDEN', `to ${what} you need the "write" capability, which ${caller.name} does not have`);
  }

  resultOf(task: TaskRecord): Record<string, unknown> {
    const op = this.operations.get(task.operation);
    if (op?.resultOf) return op.resultOf(task);
    const r = task.result;
    if (r && typeof r === 'object' && Array.isArray((r as { content?: unknown }).content)) return r as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(r ?? null, null, 2) }], structuredContent: r ?? {} };
  }

  /** Resolves with the task once `until` holds (checked now and on every change), or null when aborted or deleted. */
  waitFor(taskId: string, until: (t: TaskRecord) => boolean, signal?: AbortSignal): Promise<TaskRecord | null> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (value: TaskRecord | null) => {
        if (done) return;
        done = true;
        unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const check = () => {
        const t = this.ctx.room.tasks.get(taskId);
        if (!t) finish(null);
        else if (until(t)) finish(t);
      };
      const onAbort = () => finish(null);
      const unsubscribe = this.ctx.room.tasks.onChange((id) => {
        if (id === taskId) check();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) finish(null);
      else check();
    });
  }

  onChange(listener: (taskId: string) => void): () => void {
    return this.ctx.room.tasks.onChange(listener);
  }

  /** Moves a live task to a new status with its event, in one transaction; a task already ended is left alone. */
  transition(taskId: string, change: { status: TaskRecord['status']; statusMessage?: string | null; result?: unknown; error?: TaskError | null; inputRequests?: Record<string, unknown> | null }): boolean {
    return this.ctx.commit(() => {
      const task = this.ctx.room.tasks.get(taskId);
      if (!task || isTerminalTask(task.status)) return { value: false, events: [] };
      if (task.status !== change.status) nextTaskStatus(task.status, change.status);
      const inputRequests = change.status === 'input_required' ? (change.inputRequests ?? task.inputRequests) : null;
      this.ctx.room.tasks.update(taskId, { ...change, inputRequests }, this.ctx.now());
      return {
        value: true,
        events: [{ kind: `task.${change.status}`, actor: null, subject: taskId, data: { operation: task.operation } }],
      };
    });
  }

  private finish(taskId: string, change: { status: 'cancelled' | 'failed' | 'completed'; statusMessage: string }): void {
    this.transition(taskId, change);
  }

  /** Creates a task row (durable before this returns), with its event. */
  create(t: { operation: string; owner: string; assignee?: string | null; ttlMs: number | null; pollIntervalMs: number; correlationId?: string }): TaskRecord {
    const id = this.ctx.ids.taskId();
    this.ctx.commit(() => {
      this.ctx.room.tasks.insert({
        id,
        operation: t.operation,
        owner: t.owner,
        assignee: t.assignee ?? null,
        ttlMs: t.ttlMs,
        pollIntervalMs: t.pollIntervalMs,
        correlationId: t.correlationId ?? this.ctx.ids.correlationId(),
        at: this.ctx.now(),
      });
      return { value: undefined, events: [{ kind: 'task.created', actor: t.owner, subject: id, data: { operation: t.operation } }] };
    });
    const created = this.ctx.room.tasks.get(id);
    if (!created) throw new RoomError('INTERNAL', 'task vanished after insert');
    return created;
  }
}
