import type Database from 'better-sqlite3';

/** Each connection's own `synchronous` setting (FULL for a room), read on its first commit through here. */
const ownModes = new WeakMap<Database.Database, number>();

/**
 * Runs `write` with its commits not fsynced (synchronous=NORMAL), then restores the connection's own setting.
 * In WAL mode the pages still reach the OS, so a killed process loses nothing, and the next state commit's fsync
 * makes them durable. Only for rows that record calls or describe this process (the audit ring, the runner
 * row), never for the room's state: those commits keep their fsync.
 */
export function withoutCommitFsync<T>(db: Database.Database, write: () => T): T {
  let mode = ownModes.get(db);
  if (mode === undefined) {
    mode = db.pragma('synchronous', { simple: true }) as number;
    ownModes.set(db, mode);
  }
  if (mode <= 1) return write(); // OFF or NORMAL already: nothing to lighten
  // the pragmas as statements (a room caches them): an exec would compile them again on every call
  db.prepare('PRAGMA synchronous = NORMAL').run();
  try {
    return write();
  } finally {
    db.prepare(`PRAGMA synchronous = ${mode}`).run();
  }
}
