import type Database from 'better-sqlite3';
import { RoomError } from '../../common/errors';
import { MIGRATION_001_ROOM } from './migrations/001-room';
import { MIGRATION_002_TASKS } from './migrations/002-tasks';
import { MIGRATION_003_HANDOFFS } from './migrations/003-handoffs';
import { MIGRATION_004_GRAPHS } from './migrations/004-graphs';
import { MIGRATION_005_AUDIT } from './migrations/005-audit';
import { MIGRATION_006_SWEEP_INDEXES } from './migrations/006-sweep-indexes';
import { MIGRATION_007_LOG_ARCHIVES } from './migrations/007-log-archives';
import { MIGRATION_008_AUDIT_TARGET } from './migrations/008-audit-target';
import { MIGRATION_009_WORKSPACES } from './migrations/009-workspaces';
import { MIGRATION_010_WRITABLE_FOLDERS } from './migrations/010-writable-folders';
import { MIGRATION_011_WORKSPACE_INTENTS } from './migrations/011-workspace-intents';
import { MIGRATION_012_HANDOFF_LIST_INDEXES } from './migrations/012-handoff-list-indexes';
import { MIGRATION_013_HOSTS } from './migrations/013-hosts';
import { MIGRATION_014_SCHEDULES } from './migrations/014-schedules';
import { MIGRATION_015_AGENT_WATCH } from './migrations/015-agent-watch';
import { MIGRATION_016_SPEND } from './migrations/016-spend';
import { MIGRATION_017_HOSTWORK } from './migrations/017-hostwork';
import { MIGRATION_018_MIRROR } from './migrations/018-mirror';
import { MIGRATION_019_HOSTAGENT2 } from './migrations/019-hostagent2';

/**
 * Forward-only migrations, one file each in migrations/. Entry N brings a room from schema N-1 to N;
 * `PRAGMA user_version` records where a room is. A room written by a newer runner is refused rather than
 * guessed at. Never edit a migration that has shipped: add the next one.
 */
const MIGRATIONS: readonly string[] = [MIGRATION_001_ROOM, MIGRATION_002_TASKS, MIGRATION_003_HANDOFFS, MIGRATION_004_GRAPHS, MIGRATION_005_AUDIT, MIGRATION_006_SWEEP_INDEXES, MIGRATION_007_LOG_ARCHIVES, MIGRATION_008_AUDIT_TARGET, MIGRATION_009_WORKSPACES, MIGRATION_010_WRITABLE_FOLDERS, MIGRATION_011_WORKSPACE_INTENTS, MIGRATION_012_HANDOFF_LIST_INDEXES, MIGRATION_013_HOSTS, MIGRATION_014_SCHEDULES, MIGRATION_015_AGENT_WATCH, MIGRATION_016_SPEND, MIGRATION_017_HOSTWORK, MIGRATION_018_MIRROR, MIGRATION_019_HOSTAGENT2];

export const LATEST_SCHEMA = MIGRATIONS.length;

/** What each schema version brings, for messages that say what an older room lacks (index = version - 1). */
const MIGRATION_NAMES: readonly string[] = ['rooms', 'tasks', 'handoffs', 'graphs', 'the audit ring', 'the sweep indexes', 'log archives', 'audit targets', 'workspaces', 'writable folders', 'workspace intents', 'the handoff list indexes', 'hosts', 'schedules', 'agent watch defaults', 'spend and envelopes', 'workspaces on hosts', 'the shells placed on hosts', 'the agent runs on hosts'];

export function schemaVersionOf(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function tooNew(databasePath: string, version: number): RoomError {
  return new RoomError('ROOM_TOO_NEW', `${databasePath} has schema version ${version}, newer than this runner understands (${LATEST_SCHEMA}): update Commonroom`);
}

/**
 * A reader never migrates: a room at another schema than this runner's is refused, saying what to do
 * (an older room is upgraded by opening it once as its writer).
 */
export function checkSchemaReadable(db: Database.Database, databasePath: string): void {
  const version = schemaVersionOf(db);
  if (version > LATEST_SCHEMA) throw tooNew(databasePath, version);
  if (version < LATEST_SCHEMA) {
    throw new RoomError(
      'UNAVAILABLE',
      `this room has schema ${version}, from before ${MIGRATION_NAMES[version] ?? 'this runner'}: open it once with this version ("commonroom serve") to upgrade it`,
    );
  }
}

/** Applies every missing migration, each in its own transaction with the version bump. */
export function migrate(db: Database.Database, databasePath: string, target = LATEST_SCHEMA): { from: number; to: number } {
  const from = schemaVersionOf(db);
  if (from > LATEST_SCHEMA) throw tooNew(databasePath, from);
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
