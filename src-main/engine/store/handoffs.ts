import type Database from 'better-sqlite3';
import type { ArtifactRef, HandoffResult, HandoffView, InputAnswer } from '../../common/handoff-dto';
import type { HandoffStatus } from '../../common/handoff-machine';

/** A handoff row as the engine sees it. JSON columns are parsed. */
export interface HandoffRecord {
  id: string;
  taskId: string;
  owner: string;
  target: string | null;
  assignee: string | null;
  status: HandoffStatus;
  summary: string;
  constraints: string | null;
  artifacts: ArtifactRef[];
  result: HandoffResult | null;
  inputAnswers: Record<string, InputAnswer>;
  decision: HandoffView['decision'];
  cancellation: HandoffView['cancellation'];
  idempotencyKey: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  task_id: string;
  owner: string;
  target: string | null;
  assignee: string | null;
  status: HandoffStatus;
  summary: string;
  constraints: string | null;
  artifacts: string;
  result: string | null;
  input_answers: string;
  decision: string | null;
  cancellation: string | null;
  idempotency_key: string | null;
  created_at: string;
  updated_at: string;
}

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

function toRecord(row: Row): HandoffRecord {
  return {
    id: row.id,
    taskId: row.task_id,
    owner: row.owner,
    target: row.target,
    assignee: row.assignee,
    status: row.status,
    summary: row.summary,
    constraints: row.constraints,
    artifacts: JSON.parse(row.artifacts) as ArtifactRef[],
    result: parse(row.result),
    inputAnswers: JSON.parse(row.input_answers) as Record<string, InputAnswer>,
    decision: parse(row.decision),
    cancellation: parse(row.cancellation),
    idempotencyKey: row.idempotency_key,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type NewHandoff = Pick<HandoffRecord, 'id' | 'taskId' | 'owner' | 'target' | 'summary' | 'constraints' | 'artifacts' | 'idempotencyKey'> & {
  at: string;
};

export type HandoffChange = Partial<Pick<HandoffRecord, 'status' | 'assignee' | 'result' | 'inputAnswers' | 'decision' | 'cancellation'>>;

/**
 * Who may see a handoff, as SQL over a row aliased `h`: its owner, its addressee, its assignee, anyone with
 * `approve` (@all = 1), and anyone who could accept it (@canAccept = 1) while it is open to anyone.
 * The one visibility rule for single reads, lists and event filtering.
 */
export const VISIBLE_TO = `(@all = 1 OR h.owner = @me OR h.target = @me OR h.assignee = @me OR (h.target IS NULL AND h.status = 'open' AND @canAccept = 1))`;

export interface Viewer {
  me: string;
  all: boolean;
  canAccept: boolean;
}

/** The named parameters VISIBLE_TO expects. */
export const viewerParams = (v: Viewer): Record<string, string | number> => ({ me: v.me, all: v.all ? 1 : 0, canAccept: v.canAccept ? 1 : 0 });

/** What a History read narrows ended handoffs to (every field optional). */
export interface EndedFilter {
  status?: 'approved' | 'rejected' | 'cancelled' | undefined;
  participant?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  text?: string | undefined;
}

/** Handoff rows. Callers own the transaction (and the transition rules: see common/handoff-machine.ts). */
export class HandoffRepo {
  constructor(private readonly db: Database.Database) {}

  insert(h: NewHandoff): void {
    this.db
      .prepare(
        `INSERT INTO handoffs (id, task_id, owner, target, status, summary, constraints, artifacts, idempotency_key, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?)`,
      )
      .run(h.id, h.taskId, h.owner, h.target, h.summary, h.constraints, JSON.stringify(h.artifacts), h.idempotencyKey, h.at, h.at);
  }

  get(id: string): HandoffRecord | null {
    const row = this.db.prepare('SELECT * FROM handoffs WHERE id = ?').get(id) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** The handoff a viewer may see, or null: unknown and not visible are the same answer. */
  visible(id: string, viewer: Viewer): HandoffRecord | null {
    const row = this.db.prepare(`SELECT * FROM handoffs h WHERE h.id = @id AND ${VISIBLE_TO}`).get({ id, ...viewerParams(viewer) }) as
      | Row
      | undefined;
    return row ? toRecord(row) : null;
  }

  /**
   * Whether the viewer may see the handoff this task belongs to (false when there is none): one indexed lookup,
   * no row read or parsed. Listen streams and task reads ask this for every change they are told of.
   */
  taskVisible(taskId: string, viewer: Viewer): boolean {
    return this.db.prepare(`SELECT 1 FROM handoffs h WHERE h.task_id = @taskId AND ${VISIBLE_TO}`).get({ taskId, ...viewerParams(viewer) }) !== undefined;
  }

  byTask(taskId: string): HandoffRecord | null {
    const row = this.db.prepare('SELECT * FROM handoffs WHERE task_id = ?').get(taskId) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  byIdempotencyKey(owner: string, key: string): HandoffRecord | null {
    const row = this.db.prepare('SELECT * FROM handoffs WHERE owner = ? AND idempotency_key = ?').get(owner, key) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** Newest first. */
  /** Newest first; `before`: only those older than this (created_at, id), for the next page. */
  listVisible(
    viewer: Viewer,
    options: { status?: HandoffStatus | undefined; limit: number; before?: { createdAt: string; id: string } | null },
  ): HandoffRecord[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM handoffs h WHERE ${VISIBLE_TO} AND (@status IS NULL OR h.status = @status)
           AND (@beforeAt IS NULL OR h.created_at < @beforeAt OR (h.created_at = @beforeAt AND h.id < @beforeId))
         ORDER BY h.created_at DESC, h.id DESC LIMIT @limit`,
      )
      .all({
        ...viewerParams(viewer),
        status: options.status ?? null,
        limit: options.limit,
        beforeAt: options.before?.createdAt ?? null,
        beforeId: options.before?.id ?? null,
      }) as Row[];
    return rows.map(toRecord);
  }

  /**
   * Ended handoffs (approved, rejected, cancelled) a viewer may see, the most recently ended first (an ended
   * handoff's updated_at is when it ended: nothing changes it after). `participant`: it owned, was addressed
   * to, did, decided or cancelled it. `since`/`until`: ended in [since, until). `text`: in its summary.
   */
  listEnded(viewer: Viewer, f: EndedFilter & { limit: number; before?: { at: string; id: string } | null }): HandoffRecord[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM handoffs h WHERE ${VISIBLE_TO} AND h.status IN ('approved', 'rejected', 'cancelled')
           AND (@status IS NULL OR h.status = @status)
           AND (@who IS NULL OR h.owner = @who OR h.target = @who OR h.assignee = @who
                OR json_extract(h.decision, '$.by') = @who OR json_extract(h.cancellation, '$.by') = @who)
           AND (@since IS NULL OR h.updated_at >= @since) AND (@until IS NULL OR h.updated_at < @until)
           AND (@text IS NULL OR instr(lower(h.summary), lower(@text)) > 0)
           AND (@beforeAt IS NULL OR h.updated_at < @beforeAt OR (h.updated_at = @beforeAt AND h.id < @beforeId))
         ORDER BY h.updated_at DESC, h.id DESC LIMIT @limit`,
      )
      .all({
        ...viewerParams(viewer),
        status: f.status ?? null,
        who: f.participant ?? null,
        since: f.since ?? null,
        until: f.until ?? null,
        text: f.text ?? null,
        limit: f.limit,
        beforeAt: f.before?.at ?? null,
        beforeId: f.before?.id ?? null,
      }) as Row[];
    return rows.map(toRecord);
  }

  /** Applies a change and bumps updated_at. */
  update(id: string, change: HandoffChange, at: string): void {
    const column: Record<keyof HandoffChange, string> = {
      status: 'status',
      assignee: 'assignee',
      result: 'result',
      inputAnswers: 'input_answers',
      decision: 'decision',
      cancellation: 'cancellation',
    };
    const sets: string[] = ['updated_at = @at'];
    const params: Record<string, unknown> = { id, at };
    for (const [key, value] of Object.entries(change) as [keyof HandoffChange, unknown][]) {
      if (value === undefined) continue;
      const json = key !== 'status' && key !== 'assignee';
      sets.push(`${column[key]} = @${key}`);
      params[key] = json && value !== null ? JSON.stringify(value) : value;
    }
    this.db.prepare(`UPDATE handoffs SET ${sets.join(', ')} WHERE id = @id`).run(params);
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM handoffs').get() as { n: number }).n;
  }
}
