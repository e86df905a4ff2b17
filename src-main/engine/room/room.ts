import { randomIds } from '../core/ids';
import type Database from 'better-sqlite3';
import { RoomError } from '../../common/errors';
import { resolvePaths, type Paths } from '../core/config';
import { operatorTokenPath } from '../core/room-paths';
import { ensurePrivateDir, withPrivateUmask } from '../core/fs-safe';
import { EventRepo } from '../store/events';
import { checkSchemaReadable, migrate, schemaVersionOf } from '../store/migrations';
import { cacheStatements } from '../store/statement-cache';
import { ensureOperatorToken } from './operator-token';
import { ParticipantRepo } from '../store/participants';
import { RoomLock, roomLockedError } from './room-lock';
import { TaskRepo } from '../store/tasks';
import {
  checkDatabaseFiles,
  createMarkdownIfMissing,
  explainFolderError,
  locateRoom,
  noRoomError,
  openReaderDatabase,
  readRunner,
  roomExists,
  type RoomLocation,
  type RunnerRecord,
} from './room-files';
import { RoomReader } from './room-reader';
import { isAlive } from '../process/process-tree';
import { openDatabase } from '../store/native-binding';
import { withoutCommitFsync } from '../store/unsynced-commit';

export { locateRoom, type RoomLocation, type RunnerRecord } from './room-files';
export { RoomReader } from './room-reader';

export interface OpenRoomOptions {
  /** The room's markdown file; the default room when omitted. */
  markdown?: string | undefined;
  paths?: Paths;
  clock?: () => Date;
  /**
   * Open only a room that exists (NOT_FOUND otherwise, with nothing created): for every opener but the one
   * that starts a room (`commonroom serve`, the app, `ce init`), so a mistyped path never mints a new room.
   */
  mustExist?: boolean;
}

function applyPragmas(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  // A committed task or handoff state survives a crash of the process and of the machine.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('journal_size_limit = 67108864');
}


/**
 * The room as its single writer holds it (the database, the lock, the operator's token file), or, opened
 * read-only, the database alone: no lock, no writes (the CLI reads through an engine over it).
 */
export class Room {
  readonly db: Database.Database;
  readonly participants: ParticipantRepo;
  readonly events: EventRepo;
  readonly tasks: TaskRepo;
  readonly id: string;
  readonly createdAt: string;
  readonly startedAt: string;
  readonly operatorTokenFile: string;
  /** Opened without the lock: SQLite refuses every write, and the engine over it serves reads only. */
  readonly readOnly: boolean;
  private closed = false;
  private writerSchemaVersion: number | undefined;

  private constructor(
    readonly location: RoomLocation,
    readonly paths: Paths,
    private readonly lock: RoomLock | null,
    db: Database.Database,
    readonly clock: () => Date,
  ) {
    this.db = db;
    this.readOnly = lock === null;
    // the lock holder is the rows' only writer: it may keep token lookups (a read-only room may not)
    this.participants = new ParticipantRepo(db, !this.readOnly);
    this.events = new EventRepo(db);
    this.tasks = new TaskRepo(db);
    this.startedAt = clock().toISOString();
    const meta = this.readOnly ? this.readMeta() : this.ensureMeta();
    this.id = meta.id;
    this.createdAt = meta.createdAt;
    this.operatorTokenFile = operatorTokenPath(paths, this.id);
    if (this.readOnly) return;
    ensurePrivateDir(paths.configDir); // the config root too, not only the tokens folder in it
    ensureOperatorToken(db, this, this.operatorTokenFile, this.now());
    this.writeProcessRecord(() =>
      this.db
        .prepare(
          `INSERT INTO runner (id, pid, started_at, endpoint, token_file) VALUES (1, ?, ?, NULL, ?)
           ON CONFLICT(id) DO UPDATE SET pid = excluded.pid, started_at = excluded.started_at, endpoint = NULL,
             token_file = excluded.token_file`,
        )
        .run(process.pid, this.startedAt, this.operatorTokenFile),
    );
  }

  /**
   * The runner row describes this live process (its pid, its endpoint), not the room's state: after a power
   * loss the process is gone and a stale row is what readers already handle (they check the pid). So its
   * commits skip the WAL fsync (other processes see them at once): two fsyncs less before the first answer.
   */
  private writeProcessRecord(write: () => void): void {
    withoutCommitFsync(this.db, write);
  }

  /**
   * Opens an existing room for reading while another process may hold it: no lock is taken (a reader must
   * never make a starting writer fail) and nothing is written. A room whose schema is not this runner's is
   * refused with what to do, never half-read.
   */
  static openReadOnly(options: OpenRoomOptions = {}): Room {
    const paths = options.paths ?? resolvePaths();
    const location = locateRoom(options.markdown, paths, false);
    const db = openReaderDatabase(location, options.markdown === undefined);
    try {
      checkSchemaReadable(db, location.databasePath);
      return new Room(location, paths, null, db, options.clock ?? (() => new Date()));
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Opens (creating if needed) a room as its only writer, or fails at once naming the holder. */
  static open(options: OpenRoomOptions = {}): Room {
    const paths = options.paths ?? resolvePaths();
    const location = locateRoom(options.markdown, paths, !options.mustExist);
    if (options.mustExist && !roomExists(location)) throw noRoomError(location, options.markdown === undefined);
    let lock: RoomLock | null;
    try {
      createMarkdownIfMissing(location.markdownPath);
      checkDatabaseFiles(location.databasePath);
      lock = RoomLock.tryAcquire(location.lockPath);
    } catch (error) {
      throw explainFolderError(error, location, false);
    }
    if (lock === null) throw roomLockedError(location.databasePath, RoomReader.holderOf(location));
    let db: Database.Database | undefined;
    try {
      db = withPrivateUmask(() => openDatabase(location.databasePath, { timeout: 5000 }));
      applyPragmas(db);
      cacheStatements(db);
      migrate(db, location.databasePath);
      return new Room(location, paths, lock, db, options.clock ?? (() => new Date()));
    } catch (error) {
      db?.close();
      lock.release();
      throw explainFolderError(error, location, false);
    }
  }

  now(): string {
    return this.clock().toISOString();
  }

  /** The writer migrated the room on open and is its only writer: its version is read once, not per call. */
  get schemaVersion(): number {
    if (this.readOnly) return schemaVersionOf(this.db);
    this.writerSchemaVersion ??= schemaVersionOf(this.db);
    return this.writerSchemaVersion;
  }

  /** Records where this process serves the room, so the CLI can send changes through it. */
  setEndpoint(endpoint: string | null): void {
    this.writeProcessRecord(() => this.db.prepare('UPDATE runner SET endpoint = ? WHERE id = 1').run(endpoint));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.readOnly) {
      this.db.close();
      return;
    }
    try {
      this.db.prepare('UPDATE runner SET endpoint = NULL WHERE id = 1').run();
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
      this.lock?.release();
    }
  }

  /**
   * The live room process serving this room, if any. Decided from the holder record and the pid, without
   * touching the lock; a stale answer after pid reuse only costs the caller a refused connection.
   */
  runningProcess(): RunnerRecord | null {
    const runner = readRunner(this.db);
    return runner && runner.endpoint !== null && isAlive(runner.pid) ? runner : null;
  }

  private readMeta(): { id: string; createdAt: string } {
    const get = (key: string) => (this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
    const id = get('room_id');
    const createdAt = get('created_at');
    if (id === undefined || createdAt === undefined) {
      throw new RoomError('UNAVAILABLE', `the room ${this.location.markdownPath} was never opened completely: start it once with "commonroom serve"`);
    }
    return { id, createdAt };
  }

  private ensureMeta(): { id: string; createdAt: string } {
    const get = (key: string) =>
      (this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
    let id = get('room_id');
    let createdAt = get('created_at');
    if (id === undefined || createdAt === undefined) {
      id = randomIds.roomId();
      createdAt = this.startedAt;
      const put = this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
      const newId = id;
      const at = createdAt;
      this.db
        .transaction(() => {
          put.run('room_id', newId);
          put.run('created_at', at);
          this.events.append({ at, kind: 'room.created', actor: null, subject: newId, data: { markdownPath: this.location.markdownPath } });
        })
        .immediate();
    }
    return { id, createdAt };
  }
}
