import type Database from 'better-sqlite3';
import { openDatabase } from '../store/native-binding';
import { RoomError } from '../../common/errors';
import { checkPrivateFile, withPrivateUmask } from '../core/fs-safe';

/**
 * The single-writer lock of a room. The writer keeps a `BEGIN IMMEDIATE` transaction open on a tiny SQLite
 * file beside the room: SQLite's own file lock (fcntl) is what excludes a second writer, and the kernel drops
 * it when the holder dies, even by SIGKILL, so no stale lock is ever left to clean up by hand.
 * The lock file is only ever touched through SQLite (closing any other descriptor on it would drop the lock).
 */
export class RoomLock {
  private constructor(
    private readonly db: Database.Database,
    readonly path: string,
  ) {}

  /** Takes the lock at once, or returns null when another connection holds it. */
  static tryAcquire(lockPath: string): RoomLock | null {
    checkPrivateFile(lockPath);
    const db = withPrivateUmask(() => openDatabase(lockPath, { timeout: 0 }));
    try {
      db.pragma('journal_mode = DELETE');
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code === 'SQLITE_BUSY') return null;
      throw error;
    }
    return new RoomLock(db, lockPath);
  }

  release(): void {
    if (!this.db.open) return;
    try {
      this.db.exec('ROLLBACK');
    } catch {
      // closing the connection releases the lock whatever state the transaction is in
    }
    this.db.close();
  }
}

export function roomLockedError(databasePath: string, holder: { pid: number; startedAt: string; endpoint?: string | null } | null): RoomError {
  if (holder === null) {
    return new RoomError(
      'ROOM_LOCKED',
      `the room ${databasePath} is held by another room process that is still starting; try again in a moment`,
    );
  }
  return new RoomError(
    'ROOM_LOCKED',
    `the room ${databasePath} is already open in another room process (pid ${holder.pid}, since ${holder.startedAt}` +
      `${holder.endpoint ? `, serving ${holder.endpoint}` : ', not serving an endpoint'}); ` +
      (holder.endpoint
        ? `use it (its MCP endpoint is ${new URL('/mcp', holder.endpoint).toString()}; "ce" commands go through it), or stop that process first`
        : 'stop that process first, or wait for it to end'),
    { pid: holder.pid, startedAt: holder.startedAt, endpoint: holder.endpoint ?? null },
  );
}
