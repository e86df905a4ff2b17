import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { EngineContext } from '../feature';
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
}

/** A feature's log source: answers for the ids it owns (a graph stage, …), null for the others. */
export interface LogReader {
  read(caller: Caller, id: string, fromSeq: number, limit: number): LogPage | null;
  /** A cheap token that changes when the log grows (watchers compare it instead of reading the log). */
  version(caller: Caller, id: string): string | null;
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

  /** What a watcher compares: a cheap token that changes whenever the log has new records. */
  version(caller: Caller, id: string): string {
    for (const reader of this.readers) {
      const v = reader.version(caller, id);
      if (v !== null) return v;
    }
    const task = this.tasks.get(caller, id);
    const row = this.ctx.room.db
      .prepare(
        `SELECT max(id) AS last FROM events
         WHERE subject IN (@id, @correlation) OR json_extract(data, '$.graphId') = @id OR json_extract(data, '$.taskId') = @id`,
      )
      .get({ id: task.id, correlation: task.correlationId }) as { last: number | null };
    return `events:${row.last ?? 0}`;
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
    return {
      records: page.map((r) => {
        const { id: seq, at, kind, actor, data } = eventOf(r);
        return { seq, at, kind, actor, data };
      }),
      nextSeq: last ? last.id + 1 : fromSeq,
      more: rows.length > limit,
    };
  }
}

export function unknownLog(): RoomError {
  return new RoomError('NOT_FOUND', 'unknown task');
}
