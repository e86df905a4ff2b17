import type Database from 'better-sqlite3';
import type { EventView } from '../../common/handoff-dto';
import { LIMITS } from '../../common/limits';

/** An event row as stored. */
export interface EventRow {
  id: number;
  at: string;
  kind: string;
  actor: string | null;
  subject: string | null;
  data: string;
}

/** An event to append: what happened, when, by whom, to what. */
export interface NewEvent {
  at: string;
  kind: string;
  actor: string | null;
  subject: string | null;
  data?: unknown;
}

/** An event row with its data parsed: what every reader (handoff events, history, task logs) shows. */
export function eventOf(r: EventRow): EventView {
  return { id: r.id, at: r.at, kind: r.kind, actor: r.actor, subject: r.subject, data: JSON.parse(r.data) as unknown };
}

/**
 * The room's append-only event ring. Written inside the caller's transaction with the change it records; each
 * append also drops whatever fell out of the ring, in that same transaction, so the table never holds more
 * than `ringSize` rows and a reader never sees a half-trimmed ring.
 */
export class EventRepo {
  constructor(
    private readonly db: Database.Database,
    private readonly ringSize: number = LIMITS.eventRingSize,
  ) {}

  append(e: NewEvent): number {
    return this.appendAll([e])[0] as number;
  }

  /** Appends events in order (one commit's), then trims the ring once; returns their ids. */
  appendAll(list: readonly NewEvent[]): number[] {
    if (list.length === 0) return [];
    const insert = this.db.prepare('INSERT INTO events (at, kind, actor, subject, data) VALUES (?, ?, ?, ?, ?)');
    const ids = list.map((e) => Number(insert.run(e.at, e.kind, e.actor, e.subject, JSON.stringify(e.data ?? {})).lastInsertRowid));
    // ids only grow (AUTOINCREMENT) and only the oldest rows are ever deleted, so they have no gaps: "older than
    // the ringSize-th newest" is the rowid range up to id - ringSize (was: a subquery stepping over ringSize
    // rows of the index on every append, several times per call); one trim after the commit's last append
    this.db.prepare('DELETE FROM events WHERE id <= ?').run((ids[ids.length - 1] as number) - this.ringSize);
    return ids;
  }

  /** The newest `limit` events of one kind still in the ring, newest first (a bounded scan: the ring is). */
  latestOfKind(kind: string, limit: number): { id: number; at: string; actor: string | null; subject: string | null; data: unknown }[] {
    const rows = this.db.prepare('SELECT id, at, actor, subject, data FROM events WHERE kind = ? ORDER BY id DESC LIMIT ?').all(kind, limit) as { id: number; at: string; actor: string | null; subject: string | null; data: string }[];
    return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as unknown }));
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  }

  /** The oldest id still in the ring; a reader whose cursor is below it missed events. */
  oldestId(): number | null {
    return (this.db.prepare('SELECT min(id) AS id FROM events').get() as { id: number | null }).id;
  }
}
