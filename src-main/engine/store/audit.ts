import type Database from 'better-sqlite3';
import type { AuditEntry } from '../../common/methods/audit';
import { withoutCommitFsync } from './unsynced-commit';

/**
 * The audit ring (schema 5): one row per call, the newest `ringSize` kept, read newest first by id cursor.
 * Rows of one event-loop turn are written in one transaction after it (a commit per call would put an fsync
 * on every read an agent makes); a read or close flushes what is pending first.
 */
export class AuditRepo {
  private pending: Omit<AuditEntry, 'id'>[] = [];
  private scheduled = false;
  private writeTransaction: ((rows: Omit<AuditEntry, 'id'>[]) => void) | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly ringSize: number,
    /** Told when a write fails (the runner's health dedups it: one log line while a full disk lasts, not one per call). */
    private readonly onWriteFailed: (error: unknown, kept: number) => void = (error, kept) => {
      const code = (error as { code?: string }).code ?? (error as Error).message;
      console.error(`[audit] writing the audit log failed (${code}); ${kept} row(s) kept for the next write`);
    },
  ) {}

  append(e: Omit<AuditEntry, 'id'>): void {
    this.pending.push(e);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flushOrKeep());
  }

  /**
   * A failed write (a full disk: SQLITE_FULL) must not take the runner down from a timer: the rows stay pending
   * (bounded by the ring size) for the next write, and the failure is reported without a stack.
   */
  private flushOrKeep(): void {
    try {
      this.flush();
    } catch (error) {
      this.onWriteFailed(error, this.pending.length);
    }
  }

  /** Writes what is pending (also called before reads and when the room closes). */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || !this.db.open) return;
    const rows = this.pending;
    this.pending = [];
    // Audit rows record calls, not state: their commit skips the WAL fsync, and they become durable with the
    // next state commit's fsync. An fsync per flush blocked the event loop — and with it the PTYs being read —
    // for tens of ms per call on a busy disk (a quarter of the room's time while an agent read a flood).
    try {
      withoutCommitFsync(this.db, () => this.writeRows(rows));
    } catch (error) {
      this.pending = [...rows, ...this.pending].slice(-this.ringSize);
      throw error;
    }
  }

  /** One transaction for a flush's rows, built on the first flush (`db.transaction` makes its wrappers anew on every call). */
  private writeRows(rows: Omit<AuditEntry, 'id'>[]): void {
    this.writeTransaction ??= this.db.transaction((batch: Omit<AuditEntry, 'id'>[]) => {
      const insert = this.db.prepare('INSERT INTO audit (at, participant, method, outcome, duration_ms, target) VALUES (?, ?, ?, ?, ?, ?)');
      let last = 0;
      for (const e of batch) last = Number(insert.run(e.at, e.participant, e.method, e.outcome, e.durationMs, e.target).lastInsertRowid);
      // AUTOINCREMENT ids with only the oldest ever deleted have no gaps: the ring is a rowid range (a subquery
      // stepping over ringSize = 10,000 index entries cost ~0.2 ms on every call's flush)
      this.db.prepare('DELETE FROM audit WHERE id <= ?').run(last - this.ringSize);
    });
    this.writeTransaction(rows);
  }

  /** Newest first, `limit` rows older than `before` (an id), of one participant if given, and whether more are older. */
  page(before: number | null, limit: number, participant?: string): { entries: AuditEntry[]; more: boolean } {
    this.flushOrKeep();
    const columns = 'id, at, participant, method, outcome, duration_ms AS durationMs, target';
    const rows = (
      participant === undefined
        ? this.db.prepare(`SELECT ${columns} FROM audit WHERE id < ? ORDER BY id DESC LIMIT ?`).all(before ?? Number.MAX_SAFE_INTEGER, limit + 1)
        : this.db.prepare(`SELECT ${columns} FROM audit WHERE participant = ? AND id < ? ORDER BY id DESC LIMIT ?`).all(participant, before ?? Number.MAX_SAFE_INTEGER, limit + 1)
    ) as AuditEntry[];
    return { entries: rows.slice(0, limit), more: rows.length > limit };
  }
}
