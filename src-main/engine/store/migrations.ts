import type Database from 'better-sqlite3';
import { RoomError } from '../../common/errors';
import { SCHEMA_VERSION } from '../../common/version';

/**
 * Forward-only migrations. Entry N brings a room from schema N-1 to N; `PRAGMA user_version` records where
 * a room is. A room written by a newer runner is refused rather than guessed at.
 */
const MIGRATIONS: readonly string[] = [
  // 1: the room itself, participants, the runner's holder record, the event ring.
  `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT;

  CREATE TABLE participants (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,
    role         TEXT NOT NULL CHECK (role IN ('operator', 'agent')),
    capabilities TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    revoked_at   TEXT
  ) STRICT;

  CREATE TABLE runner (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    pid        INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    endpoint   TEXT,
    token_file TEXT
  ) STRICT;

  CREATE TABLE events (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at      TEXT NOT NULL,
    kind    TEXT NOT NULL,
    actor   TEXT,
    subject TEXT,
    data    TEXT NOT NULL DEFAULT '{}'
  ) STRICT;
  `,
];

export const LATEST_SCHEMA = MIGRATIONS.length;
if (LATEST_SCHEMA !== SCHEMA_VERSION) throw new Error('SCHEMA_VERSION and the migration list disagree');

export function schemaVersionOf(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies every missing migration, each in its own transaction with the version bump. */
export function migrate(db: Database.Database, databasePath: string): { from: number; to: number } {
  const from = schemaVersionOf(db);
  if (from > LATEST_SCHEMA) {
    throw new RoomError(
      'ROOM_TOO_NEW',
      `${databasePath} has schema version ${from}, newer than this runner understands (${LATEST_SCHEMA}): update Commonroom`,
    );
  }
  for (let version = from + 1; version <= LATEST_SCHEMA; version++) {
    const sql = MIGRATIONS[version - 1] as string;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
      db.prepare(
        `INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
      ).run(String(version));
    }).immediate();
  }
  return { from, to: LATEST_SCHEMA };
}
