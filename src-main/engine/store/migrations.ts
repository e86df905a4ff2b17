import type Database from 'better-sqlite3';
import { RoomError } from '../../common/errors';
import { MIGRATION_001_ROOM } from './migrations/001-room';
import { MIGRATION_002_TASKS } from './migrations/002-tasks';
import { MIGRATION_003_HANDOFFS } from './migrations/003-handoffs';
import { MIGRATION_004_GRAPHS } from './migrations/004-graphs';
import { MIGRATION_005_AUDIT } from './migrations/005-audit';

/**
 * Forward-only migrations, one file each in migrations/. Entry N brings a room from schema N-1 to N;
 * `PRAGMA user_version` records where a room is. A room written by a newer runner is refused rather than
 * guessed at. Never edit a migration that has shipped: add the next one.
 */
const MIGRATIONS: readonly string[] = [MIGRATION_001_ROOM, MIGRATION_002_TASKS, MIGRATION_003_HANDOFFS, MIGRATION_004_GRAPHS, MIGRATION_005_AUDIT];

export const LATEST_SCHEMA = MIGRATIONS.length;

export function schemaVersionOf(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies every missing migration, each in its own transaction with the version bump. */
export function migrate(db: Database.Database, databasePath: string, target = LATEST_SCHEMA): { from: number; to: number } {
  const from = schemaVersionOf(db);
  if (from > LATEST_SCHEMA) {
    throw new RoomError(
      'ROOM_TOO_NEW',
      `${databasePath} has schema version ${from}, newer than this runner understands (${LATEST_SCHEMA}): update Commonroom`,
    );
  }
  for (let version = from + 1; version <= Math.min(target, LATEST_SCHEMA); version++) {
    const sql = MIGRATIONS[version - 1] as string;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
      db.prepare(
        `INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
      ).run(String(version));
    }).immediate();
  }
  return { from, to: schemaVersionOf(db) };
}
