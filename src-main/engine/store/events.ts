import type Database from 'better-sqlite3';

/** The room's append-only event rows. Written inside the caller's transaction with the change they record. */
export class EventRepo {
  constructor(private readonly db: Database.Database) {}

  append(e: { at: string; kind: string; actor: string | null; subject: string | null; data?: unknown }): number {
    const info = this.db
      .prepare('INSERT INTO events (at, kind, actor, subject, data) VALUES (?, ?, ?, ?, ?)')
      .run(e.at, e.kind, e.actor, e.subject, JSON.stringify(e.data ?? {}));
    return Number(info.lastInsertRowid);
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  }
}
