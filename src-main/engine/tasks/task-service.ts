import type { Caller } from '../../common/dto';
import { isRoomError, RoomError } from '../../common/errors';
import { isTerminalTask, nextTaskStatus, type TaskStatus } from '../../common/task-machine';
import type { RoomEvent } from '../core/event-bus';
import type { EngineContext, EventInput } from '../room/index';
import type { TaskChange as StoreTaskChange, TaskRecord } from '../store/tasks';
import { decodeCursor, encodeCursor, stringAt } from '../core/paging';
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
 * The one task layer over the room's task rows, whatever created them, shaped like the MCP SDK's TaskStore
 * seam: create, get by principal (find/get), update, cancel. It is the only writer of task rows (handoffs,
 * graph runs, jobs, restart reconciliation all write through it), so every change passes the task machine
 * and records one event in the same transaction. Visibility is decided here once: a task nobody may see and a
 * task that does not exist give the same answer.
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

  /** The task as `caller` may see it: unknown and not-yours are both undefined. */
  find(caller: Caller, taskId: string): TaskRecord | undefined {
    const task = this.ctx.room.tasks.get(taskId);
    return task && this.canSee(caller, task) ? task : undefined;
  }

  /** `find`, or NOT_FOUND (the same "unknown task" for both). */
  get(caller: Caller, taskId: string): TaskRecord {
    const task = this.find(caller, taskId);
    if (!task) throw new RoomError('NOT_FOUND', UNKNOWN_TASK);
    return task;
  }

  /** The caller's own tasks (owner or assignee), newest first, with an opaque cursor. */
  list(caller: Caller, cursor: string | undefined, limit: number): { tasks: TaskRecord[]; nextCursor?: string } {
    let before: { createdAt: string; id: string } | undefined;
    if (cursor !== undefined) {
      const restart = 'start from your newest task';
      const position = decodeCursor(cursor, 'tasks', '', restart);
      before = { createdAt: stringAt(position, 0, restart), id: stringAt(position, 1, restart) };
    }
    const rows = this.ctx.room.tasks.listFor(caller.name, { limit: limit + 1, ...(before ? { before } : {}) });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return rows.length > limit && last
      ? { tasks: page, nextCursor: encodeCursor('tasks', '', [last.createdAt, last.id]) }
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
    // the operation did not end it: the task record still must read cancelled before we answer
    this.transition(taskId, { status: 'cancelled', statusMessage: `cancelled by ${caller.name}` });
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

  /** Resolves with the task once `until` holds (checked now and on every committed change), or null when aborted or deleted. */
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
      const unsubscribe = this.onChange((id) => {
        if (id === taskId) check();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) finish(null);
      else check();
    });
  }

  /**
   * The one change feed for tasks: `listener` hears the id of every task a committed event is about (every
   * task write records one event carrying `data.taskId`), and that event's id. Rolled-back writes publish nothing.
   */
  onChange(listener: (taskId: string, eventId: number) => void): () => void {
    return this.ctx.bus.subscribe((event) => {
      const taskId = taskIdOf(event);
      if (taskId !== null) listener(taskId, event.id);
    });
  }

  // ---- writes: the only code that writes task rows. Each runs inside the caller's ctx.commit when there is
  // one (a handoff's change, the graph tick), or in a commit of its own, and records exactly one event.

  /** Creates a task row with its event: the caller's (a handoff.created, a graph.submitted) or task.created. */
  create(t: NewTask, event?: EventInput): TaskRecord {
    return this.write(() => {
      const id = t.id ?? this.ctx.ids.taskId();
      this.ctx.room.tasks.insertRow({
        id,
        operation: t.operation,
        owner: t.owner,
        assignee: t.assignee ?? null,
        ttlMs: t.ttlMs,
        pollIntervalMs: t.pollIntervalMs,
        correlationId: t.correlationId ?? this.ctx.ids.correlationId(),
        at: t.at ?? this.ctx.now(),
      });
      this.ctx.emit(stamp(event ?? { kind: 'task.created', actor: t.owner, subject: id, data: { operation: t.operation } }, id, 'working'));
      return this.row(id);
    });
  }

  /**
   * Changes a task row with its event (the caller's, or task.<status>). Every change passes the task machine:
   * a status move must be legal, and a task that ended never changes again (CONFLICT, nothing written).
   * Input requests exist only while the task is input_required.
   */
  update(taskId: string, change: TaskChange, event?: EventInput): void {
    this.write(() => {
      const task = this.ctx.room.tasks.get(taskId);
      if (!task) throw new RoomError('NOT_FOUND', UNKNOWN_TASK);
      this.apply(task, change, event);
    });
  }

  /**
   * `update` of a task row the caller has just read inside its own running commit (a handoff's change reads
   * its task to decide): the same checks and event, without reading the row a second time.
   */
  updateRead(task: TaskRecord, change: TaskChange, event?: EventInput): void {
    if (!this.ctx.room.db.inTransaction) throw new Error('updateRead runs inside the commit that read the task');
    this.apply(task, change, event);
  }

  private apply(task: TaskRecord, change: TaskChange, event?: EventInput): void {
    const status = change.status ?? task.status;
    if (isTerminalTask(task.status) || status !== task.status) nextTaskStatus(task.status, status);
    const inputRequests = status === 'input_required' ? (change.inputRequests ?? task.inputRequests) : null;
    this.ctx.room.tasks.updateRow(task.id, { ...change, status, inputRequests }, this.ctx.now());
    this.ctx.emit(stamp(event ?? { kind: `task.${status}`, actor: null, subject: task.id, data: { operation: task.operation } }, task.id, status));
  }

  /**
   * `update` for writers that race other writers (a job finishing as it is cancelled, a graph ending after its
   * task was cancelled): a change the machine refuses, or a task that is gone, writes nothing and gives false.
   */
  transition(taskId: string, change: TaskChange, event?: EventInput): boolean {
    try {
      this.update(taskId, change, event);
      return true;
    } catch (error) {
      if (isRoomError(error) && (error.code === 'CONFLICT' || error.code === 'NOT_FOUND')) return false;
      throw error;
    }
  }

  /** Deletes a task row (a handoff task one TTL after it ended), with its event. */
  remove(taskId: string, event: EventInput): void {
    this.write(() => {
      const task = this.row(taskId);
      this.ctx.room.tasks.deleteRow(taskId);
      this.ctx.emit(stamp(event, taskId, task.status));
    });
  }

  private row(taskId: string): TaskRecord {
    const task = this.ctx.room.tasks.get(taskId);
    if (!task) throw new RoomError('NOT_FOUND', UNKNOWN_TASK);
    return task;
  }

  /** Inside the caller's commit when one runs, else in a commit of its own. */
  private write<T>(fn: () => T): T {
    return this.ctx.room.db.inTransaction ? fn() : this.ctx.commit(() => ({ value: fn(), events: [] }));
  }
}

/** What may be written to a task row besides its identity. */
export type TaskChange = Omit<StoreTaskChange, 'error'> & { error?: TaskError | null };

export interface NewTask {
  operation: string;
  owner: string;
  /** Given by kinds whose task id is their own id (a graph run); otherwise a fresh opaque id. */
  id?: string;
  assignee?: string | null;
  ttlMs: number | null;
  pollIntervalMs: number;
  correlationId?: string;
  at?: string;
}

/** Every event of a task write names the task and its status after the write: what the change feed keys on. */
function stamp(event: EventInput, taskId: string, taskStatus: TaskStatus): EventInput {
  const data = event.data && typeof event.data === 'object' ? (event.data as Record<string, unknown>) : {};
  return { ...event, data: { ...data, taskId, taskStatus } };
}

/** The task a committed event is about, if any. */
export function taskIdOf(event: RoomEvent): string | null {
  const data = event.data as { taskId?: unknown } | null;
  return data && typeof data.taskId === 'string' ? data.taskId : null;
}
