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

/** What `handoff_list` narrows to: a status, and a page of `limit` older than `before` (created_at, id). */
export interface ListOptions {
  status?: HandoffStatus | undefined;
  limit: number;
  before?: { createdAt: string; id: string } | null | undefined;
}

const NEWEST_FIRST = 'ORDER BY created_at DESC, id DESC';

/**
 * The statement for one `handoff_list` page, built per filter shape so each walks its own index newest first
 * and reads about a page of rows however many handoffs exist (migration 012): one statement with
 * `(@status IS NULL OR status = @status)` kept SQLite off the status index and read every handoff ever made.
 * With `approve` (sees everything): the creation index, or (status, created_at, id) under a status filter.
 * Anyone else: a page from each way a handoff is theirs (they own it, it is addressed to them, they took it,
 * or it is open to anyone and they could accept it), each on its own index, merged and cut to a page. The
 * cursor is a row-value range, which every one of these indexes ends in. Same rows, same order as VISIBLE_TO.
 */
export function listVisibleQuery(viewer: Viewer, options: ListOptions): { sql: string; params: Record<string, unknown> } {
  const status = options.status ?? null;
  const before = options.before ?? null;
  const params: Record<string, unknown> = { limit: options.limit };
  if (status !== null) params.status = status;
  if (before !== null) Object.assign(params, { beforeAt: before.createdAt, beforeId: before.id });
  const where = (...terms: string[]): string => {
    const all = [...terms, ...(status !== null ? ['status = @status'] : []), ...(before !== null ? ['(created_at, id) < (@beforeAt, @beforeId)'] : [])];
    return all.length > 0 ? `WHERE ${all.join(' AND ')}` : '';
  };
  if (viewer.all) return { sql: `SELECT * FROM handoffs ${where()} ${NEWEST_FIRST} LIMIT @limit`, params };
  params.me = viewer.me;
  const ways = ['owner = @me', 'target = @me', 'assignee = @me'].map((who) => where(who));
  if (viewer.canAccept && (status === null || status === 'open')) ways.push(where('target IS NULL', "status = 'open'"));
  const branches = ways.map((w) => `SELECT * FROM (SELECT rowid AS r, created_at AS c, id AS i FROM handoffs ${w} ${NEWEST_FIRST} LIMIT @limit)`);
  return {
    sql: `SELECT * FROM handoffs WHERE rowid IN (SELECT r FROM (${branches.join(' UNION ')}) ORDER BY c DESC, i DESC LIMIT @limit) ${NEWEST_FIRST}`,
    params,
  };
}

/** The ended statuses, as the partial indexes of migration 012 state them (the same text, so SQLite uses them). */
const ENDED = "status IN ('approved', 'rejected', 'cancelled')";

/**
 * The statement for one `handoff_history` page, with only the terms its filter has, so it walks the ended
 * handoffs' (updated_at, id) index newest first, or (status, updated_at, id) under a status filter (migration
 * 012), and stops after a page. A participant who may not see everything, a participant or a text filter read
 * on along that walk until a page of matches is found.
 */
export function listEndedQuery(viewer: Viewer, f: EndedFilter & { limit: number; before?: { at: string; id: string } | null }): { sql: string; params: Record<string, unknown> } {
  const terms = [ENDED];
  const params: Record<string, unknown> = { limit: f.limit };
  if (!viewer.all) {
    terms.push(`(owner = @me OR target = @me OR assignee = @me)`);
    params.me = viewer.me;
  }
  const add = (term: string, values: Record<string, unknown>) => {
    terms.push(term);
    Object.assign(params, values);
  };
  if (f.status !== undefined) add('status = @status', { status: f.status });
  if (f.participant !== undefined) {
    add(`(owner = @who OR target = @who OR assignee = @who OR json_extract(decision, '$.by') = @who OR json_extract(cancellation, '$.by') = @who)`, { who: f.participant });
  }
  if (f.since !== undefined) add('updated_at >= @since', { since: f.since });
  if (f.until !== undefined) add('updated_at < @until', { until: f.until });
  if (f.text !== undefined) add('instr(lower(summary), lower(@text)) > 0', { text: f.text });
  if (f.before) add('(updated_at, id) < (@beforeAt, @beforeId)', { beforeAt: f.before.at, beforeId: f.before.id });
  // named: with the ended statuses as an IN list, SQLite would rather look up each of the three in the status
  // index and sort them all
  const index = f.status === undefined ? 'handoffs_ended' : 'handoffs_ended_by_status';
  return { sql: `SELECT * FROM handoffs INDEXED BY ${index} WHERE ${terms.join(' AND ')} ORDER BY updated_at DESC, id DESC LIMIT @limit`, params };
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

  /** Newest first; `before`: only those older than this (created_at, id), for the next page. */
  listVisible(viewer: Viewer, options: ListOptions): HandoffRecord[] {
    const { sql, params } = listVisibleQuery(viewer, options);
    return (this.db.prepare(sql).all(params) as Row[]).map(toRecord);
  }

  /**
   * Ended handoffs (approved, rejected, cancelled) a viewer may see, the most recently ended first (an ended
   * handoff's updated_at is when it ended: nothing changes it after). `participant`: it owned, was addressed
   * to, did, decided or cancelled it. `since`/`until`: ended in [since, until). `text`: in its summary.
   */
  listEnded(viewer: Viewer, f: EndedFilter & { limit: number; before?: { at: string; id: string } | null }): HandoffRecord[] {
    const { sql, params } = listEndedQuery(viewer, f);
    return (this.db.prepare(sql).all(params) as Row[]).map(toRecord);
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
