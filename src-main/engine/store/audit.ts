import type Database from 'better-sqlite3';
import type { AuditEntry } from '../../common/methods/audit';

/** The audit ring (schema 5): append one row per call, keep the newest `ringSize`, read newest first by id cursor. */
export class AuditRepo {
  constructor(
    private readonly db: Database.Database,
    private readonly ringSize: number,
  ) {}

  append(e: Omit<AuditEntry, 'id'>): void {
    this.db.prepare('INSERT INTO audit (at, participant, method, outcome, duration_ms) VALUES (?, ?, ?, ?, ?)').run(e.at, e.participant, e.method, e.outcome, e.durationMs);
    this.db.prepare('DELETE FROM audit WHERE id < (SELECT id FROM audit ORDER BY id DESC LIMIT 1 OFFSET ?)').run(this.ringSize - 1);
  }

  /** Newest first, `limit` rows older than `before` (an id), and whether more are older. */
  page(before: number | null, limit: number): { entries: AuditEntry[]; more: boolean } {
    const rows = this.db
      .prepare('SELECT id, at, participant, method, outcome, duration_ms AS durationMs FROM audit WHERE id < ? ORDER BY id DESC LIMIT ?')
      .all(before ?? Number.MAX_SAFE_INTEGER, limit + 1) as AuditEntry[];
    return { entries: rows.slice(0, limit), more: rows.length > limit };
  }
}
