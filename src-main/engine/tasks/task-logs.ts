import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { EngineContext } from '../room/index';
import { eventOf, type EventRow } from '../store/events';
import type { TaskService } from './task-service';

/** One record of a task's log: ordered, with a monotonic `seq` a reader resumes from. */
export interface LogRecordOut {
  seq: number;
  [field: string]: unknown;
}

export interface LogPage {
  records: LogRecordOut[];
  /** Pass as `from` to read on: no gap, no duplicate. */
  nextSeq: number;
  /** More records are already there past nextSeq. */
  more: boolean;
  /**
   * Records before the cursor are gone: the event ring (the newest 2,000 events) dropped some of this task's
   * events before they were read. `droppedBefore` is the oldest seq still there. Re-read the task itself
   * (tasks/get, GET /workspace/task) for where it stands.
   */
  truncated?: boolean;
  droppedBefore?: number;
}

/** A feature's log source: answers for the ids it owns (a graph stage, …), null for the others. */
export interface LogReader {
  read(caller: Caller, id: string, fromSeq: number, limit: number): LogPage | null;
  /** Calls `onGrow` whenever the log grows (its writer's "grew" signal); returns the stop, or null for ids it does not own. */
  watch(caller: Caller, id: string, onGrow: () => void): (() => void) | null;
}


/**
 * task-log://{taskId}: what happened to a task, as ordered records. Features register readers for the ids
 * they own (a graph stage's output); any other task's log is its events — rows whose subject is the task
 * (or its correlation id), or whose data names it — with the event id as `seq`.
 */
export class TaskLogs {
  private readonly readers: LogReader[] = [];

  constructor(
    private readonly ctx: EngineContext,
    private readonly tasks: TaskService,
  ) {}

  register(reader: LogReader): void {
    this.readers.push(reader);
  }

  /**
   * Calls `onUpdate` whenever the task's log may have new records: its reader's "grew" signal, or else a
   * committed event that belongs to the log (the same rule `read` selects by). Returns the stop.
   */
  watch(caller: Caller, id: string, onUpdate: () => void): () => void {
    for (const reader of this.readers) {
      const stop = reader.watch(caller, id, onUpdate);
      if (stop) return stop;
    }
    const task = this.tasks.get(caller, id);
    return this.ctx.bus.subscribe((event) => {
      const data = event.data as { graphId?: unknown; taskId?: unknown } | null;
      if (event.subject === task.id || event.subject === task.correlationId || data?.graphId === task.id || data?.taskId === task.id) onUpdate();
    });
  }

  /**
   * The oldest seq still in the ring when events this reader has not seen (from `fromSeq`) may have been
   * dropped: the ring lost rows below the cursor (ids start at 1) and its oldest row is not older than the
   * task, so some of the task's own events went with them. Null when nothing of it is missing.
   */
  private droppedBefore(fromSeq: number, taskCreatedAt: string): number | null {
    const first = ringStart(this.ctx.room.db);
    if (!first || first.id <= 1 || fromSeq >= first.id) return null;
    return first.at >= taskCreatedAt ? first.id : null;
  }

  read(caller: Caller, id: string, fromSeq: number, limit: number): LogPage {
    for (const reader of this.readers) {
      const page = reader.read(caller, id, fromSeq, limit);
      if (page) return page;
    }
    const task = this.tasks.get(caller, id); // unknown and invisible: the same "unknown task"
    const rows = this.ctx.room.db
      .prepare(
        `SELECT * FROM events
         WHERE id >= @from AND (subject IN (@id, @correlation) OR json_extract(data, '$.graphId') = @id OR json_extract(data, '$.taskId') = @id)
         ORDER BY id LIMIT @take`,
      )
      .all({ from: fromSeq, id: task.id, correlation: task.correlationId, take: limit + 1 }) as EventRow[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const dropped = this.droppedBefore(fromSeq, task.createdAt);
    return {
      ...(dropped !== null ? { truncated: true, droppedBefore: dropped } : {}),
      records: page.map((r) => {
        const { id: seq, at, kind, actor, data } = eventOf(r);
        return { seq, at, kind, actor, data, ...stageLink(data) };
      }),
      nextSeq: last ? last.id + 1 : fromSeq,
      more: rows.length > limit,
    };
  }
}

/**
 * A graph run's log is its events; each about a stage links that stage's own log (its output), so the graph's
 * log is also the index of its stages' logs.
 */
function stageLink(data: unknown): { log?: string } {
  const d = data as { graphId?: unknown; stageId?: unknown } | null;
  if (typeof d?.graphId !== 'string' || typeof d.stageId !== 'string') return {};
  return { log: `task-log://${encodeURIComponent(`${d.graphId}:${d.stageId}`)}` };
}

/** ids only grow and the ring drops from the oldest, so its first row says what is gone. */
export function ringStart(db: EngineContext['room']['db']): { id: number; at: string } | undefined {
  return db.prepare('SELECT id, at FROM events ORDER BY id LIMIT 1').get() as { id: number; at: string } | undefined;
}

export function unknownLog(): RoomError {
  return new RoomError('NOT_FOUND', 'unknown task');
}
