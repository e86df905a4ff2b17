import type Database from 'better-sqlite3';
import type { TaskRecord } from '../../common/task-record';
import type { TaskStatus } from '../../common/task-machine';

/** A task row as the engine sees it (JSON columns parsed): the shape doors get, defined in common/. */
export type { TaskRecord };

interface Row {
  id: string;
  operation: string;
  owner: string;
  assignee: string | null;
  status: TaskStatus;
  status_message: string | null;
  created_at: string;
  updated_at: string;
  ttl_ms: number | null;
  poll_interval_ms: number;
  correlation_id: string;
  schema_version: number;
  result: string | null;
  error: string | null;
  input_requests: string | null;
}

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

function toRecord(row: Row): TaskRecord {
  return {
    id: row.id,
    operation: row.operation,
    owner: row.owner,
    assignee: row.assignee,
    status: row.status,
    statusMessage: row.status_message,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ttlMs: row.ttl_ms,
    pollIntervalMs: row.poll_interval_ms,
    correlationId: row.correlation_id,
    schemaVersion: row.schema_version,
    result: parse(row.result),
    error: parse(row.error),
    inputRequests: parse(row.input_requests),
  };
}

export type NewTask = Pick<TaskRecord, 'id' | 'operation' | 'owner' | 'ttlMs' | 'pollIntervalMs' | 'correlationId'> & {
  assignee?: string | null;
  at: string;
};

export type TaskChange = Partial<Pick<TaskRecord, 'status' | 'statusMessage' | 'assignee' | 'result' | 'error' | 'inputRequests'>>;

/**
 * Task rows. Written only by the task layer (engine/tasks/task-service.ts), which owns the transaction, the
 * transition rules (common/task-machine.ts) and the event each write records; live feeds follow those
 * committed events, never this repository.
 */
export class TaskRepo {
  constructor(private readonly db: Database.Database) {}

  insertRow(t: NewTask): void {
    this.db
      .prepare(
        `INSERT INTO tasks (id, operation, owner, assignee, status, created_at, updated_at, ttl_ms, poll_interval_ms, correlation_id)
         VALUES (?, ?, ?, ?, 'working', ?, ?, ?, ?, ?)`,
      )
      .run(t.id, t.operation, t.owner, t.assignee ?? null, t.at, t.at, t.ttlMs, t.pollIntervalMs, t.correlationId);
  }

  get(id: string): TaskRecord | null {
    const row = this.db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** Applies a change and bumps updated_at. JSON fields given as null are cleared. */
  updateRow(id: string, change: TaskChange, at: string): void {
    const sets: string[] = ['updated_at = @at'];
    const params: Record<string, unknown> = { id, at };
    const column: Record<keyof TaskChange, string> = {
      status: 'status',
      statusMessage: 'status_message',
      assignee: 'assignee',
      result: 'result',
      error: 'error',
      inputRequests: 'input_requests',
    };
    for (const [key, value] of Object.entries(change) as [keyof TaskChange, unknown][]) {
      if (value === undefined) continue;
      const json = key === 'result' || key === 'error' || key === 'inputRequests';
      sets.push(`${column[key]} = @${key}`);
      params[key] = json && value !== null ? JSON.stringify(value) : value;
    }
    this.db.prepare(`UPDATE tasks SET ${sets.join(', ')} WHERE id = @id`).run(params);
  }

  /** Tasks an owner (or assignee) can see, newest first, paged by created_at/id. */
  listFor(participant: string, options: { limit: number; before?: { createdAt: string; id: string } }): TaskRecord[] {
    const rows = options.before
      ? this.db
          .prepare(
            `SELECT * FROM tasks WHERE (owner = @p OR assignee = @p) AND (created_at, id) < (@createdAt, @id)
             ORDER BY created_at DESC, id DESC LIMIT @limit`,
          )
          .all({ p: participant, limit: options.limit, ...options.before })
      : this.db
          .prepare('SELECT * FROM tasks WHERE owner = @p OR assignee = @p ORDER BY created_at DESC, id DESC LIMIT @limit')
          .all({ p: participant, limit: options.limit });
    return (rows as Row[]).map(toRecord);
  }

  /** Ids of tasks of one operation that have not ended. */
  liveIds(operation: string): string[] {
    return (
      this.db.prepare("SELECT id FROM tasks WHERE operation = ? AND status IN ('working', 'input_required')").all(operation) as { id: string }[]
    ).map((r) => r.id);
  }

  /** Tasks `working` or `input_required` that `owner` created (every kind: handoffs and graphs). */
  countActiveOwnedBy(owner: string): number {
    return (this.db.prepare("SELECT count(*) AS n FROM tasks WHERE status IN ('working', 'input_required') AND owner = ?").get(owner) as { n: number }).n;
  }

  countActive(operation?: string): number {
    const row = operation
      ? this.db.prepare("SELECT count(*) AS n FROM tasks WHERE status IN ('working', 'input_required') AND operation = ?").get(operation)
      : this.db.prepare("SELECT count(*) AS n FROM tasks WHERE status IN ('working', 'input_required')").get();
    return (row as { n: number }).n;
  }

  deleteRow(id: string): void {
    this.db.prepare('DELETE FROM tasks WHERE id = ?').run(id);
  }
}
