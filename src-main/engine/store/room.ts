import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { sqliteBindingOptions } from './native-binding';
import { RoomError } from '../../common/errors';
import { CAPABILITIES } from '../../common/capabilities';
import { databasePathFor, defaultRoomMarkdown, lockPathFor, operatorTokenPath, resolvePaths, type Paths } from '../config';
import { checkPrivateFile, ensurePrivateDir, FILE_MODE, readPrivateFile, withPrivateUmask, writePrivateFile } from '../fs-safe';
import { hashToken, mintToken, sameHash } from '../tokens';
import { EventRepo } from './events';
import { migrate, schemaVersionOf } from './migrations';
import { ParticipantRepo } from './participants';
import { RoomLock, roomLockedError } from './room-lock';
import { TaskRepo } from './tasks';

export interface RoomLocation {
  markdownPath: string;
  databasePath: string;
  lockPath: string;
}

export interface OpenRoomOptions {
  /** The room's markdown file; the default room when omitted. */
  markdown?: string | undefined;
  paths?: Paths;
  clock?: () => Date;
}

export interface RunnerRecord {
  pid: number;
  startedAt: string;
  endpoint: string | null;
  tokenFile: string | null;
}

/** Resolves where a room's files are. A given markdown file's folder must exist; the default room's is made. */
export function locateRoom(markdown: string | undefined, paths: Paths): RoomLocation {
  const markdownPath = path.resolve(markdown ?? defaultRoomMarkdown(paths));
  const dir = path.dirname(markdownPath);
  if (markdown === undefined) ensurePrivateDir(dir);
  else if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new RoomError('INVALID_INPUT', `the folder ${dir} does not exist: create it first, or pass another --room`);
  }
  if (!markdownPath.endsWith('.md')) {
    throw new RoomError('INVALID_INPUT', `a room is a markdown file: ${markdownPath} should end in .md`);
  }
  return { markdownPath, databasePath: databasePathFor(markdownPath), lockPath: lockPathFor(markdownPath) };
}

function createMarkdownIfMissing(markdownPath: string): void {
  try {
    const fd = fs.openSync(
      markdownPath,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
      FILE_MODE,
    );
    try {
      fs.writeFileSync(fd, `# ${path.basename(markdownPath, '.md')}\n\nA Commonroom room. Agents and people share it.\n`);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function checkDatabaseFiles(databasePath: string): void {
  for (const file of [databasePath, `${databasePath}-wal`, `${databasePath}-shm`]) checkPrivateFile(file);
}

function applyPragmas(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  // A committed task or handoff state survives a crash of the process and of the machine.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('journal_size_limit = 67108864');
}

function readRunner(db: Database.Database): RunnerRecord | null {
  const row = db.prepare('SELECT pid, started_at, endpoint, token_file FROM runner WHERE id = 1').get() as
    | { pid: number; started_at: string; endpoint: string | null; token_file: string | null }
    | undefined;
  return row ? { pid: row.pid, startedAt: row.started_at, endpoint: row.endpoint, tokenFile: row.token_file } : null;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The room as its single writer holds it: the database, the lock, and the operator's token file. */
export class Room {
  readonly db: Database.Database;
  readonly participants: ParticipantRepo;
  readonly events: EventRepo;
  readonly tasks: TaskRepo;
  readonly id: string;
  readonly createdAt: string;
  readonly startedAt: string;
  readonly operatorTokenFile: string;
  private closed = false;

  private constructor(
    readonly location: RoomLocation,
    readonly paths: Paths,
    private readonly lock: RoomLock,
    db: Database.Database,
    readonly clock: () => Date,
  ) {
    this.db = db;
    this.participants = new ParticipantRepo(db);
    this.events = new EventRepo(db);
    this.tasks = new TaskRepo(db);
    this.startedAt = clock().toISOString();
    const meta = this.ensureMeta();
    this.id = meta.id;
    this.createdAt = meta.createdAt;
    this.operatorTokenFile = operatorTokenPath(paths, this.id);
    this.ensureOperator();
    this.db
      .prepare(
        `INSERT INTO runner (id, pid, started_at, endpoint, token_file) VALUES (1, ?, ?, NULL, ?)
         ON CONFLICT(id) DO UPDATE SET pid = excluded.pid, started_at = excluded.started_at, endpoint = NULL,
           token_file = excluded.token_file`,
      )
      .run(process.pid, this.startedAt, this.operatorTokenFile);
  }

  /** Opens (creating if needed) a room as its only writer, or fails at once naming the holder. */
  static open(options: OpenRoomOptions = {}): Room {
    const paths = options.paths ?? resolvePaths();
    const location = locateRoom(options.markdown, paths);
    createMarkdownIfMissing(location.markdownPath);
    checkDatabaseFiles(location.databasePath);
    const lock = RoomLock.tryAcquire(location.lockPath);
    if (lock === null) throw roomLockedError(location.databasePath, RoomReader.holderOf(location));
    let db: Database.Database | undefined;
    try {
      db = withPrivateUmask(() => new Database(location.databasePath, { timeout: 5000, ...sqliteBindingOptions() }));
      applyPragmas(db);
      migrate(db, location.databasePath);
      return new Room(location, paths, lock, db, options.clock ?? (() => new Date()));
    } catch (error) {
      db?.close();
      lock.release();
      throw error;
    }
  }

  now(): string {
    return this.clock().toISOString();
  }

  get schemaVersion(): number {
    return schemaVersionOf(this.db);
  }

  /** Records where this process serves the room, so the CLI can send changes through it. */
  setEndpoint(endpoint: string | null): void {
    this.db.prepare('UPDATE runner SET endpoint = ? WHERE id = 1').run(endpoint);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.prepare('UPDATE runner SET endpoint = NULL WHERE id = 1').run();
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
      this.lock.release();
    }
  }

  private ensureMeta(): { id: string; createdAt: string } {
    const get = (key: string) =>
      (this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
    let id = get('room_id');
    let createdAt = get('created_at');
    if (id === undefined || createdAt === undefined) {
      id = randomUUID();
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

  /**
   * The operator exists from the room's first open. Its token file is checked on every open; when it is
   * missing or no longer matches (deleted, or the room was copied from elsewhere) a new token replaces it.
   */
  private ensureOperator(): void {
    const operator = this.participants.operator();
    const existing = readPrivateFile(this.operatorTokenFile)?.trim() ?? null;
    if (operator && existing && sameHash(hashToken(existing), operator.tokenHash)) return;
    const token = mintToken();
    const at = this.now();
    this.db
      .transaction(() => {
        if (operator) {
          this.participants.setTokenHash(operator.id, hashToken(token));
          this.events.append({ at, kind: 'participant.token_reissued', actor: null, subject: operator.name });
        } else {
          this.participants.insert({ name: 'operator', role: 'operator', capabilities: CAPABILITIES, tokenHash: hashToken(token), at });
          this.events.append({ at, kind: 'participant.added', actor: null, subject: 'operator', data: { role: 'operator' } });
        }
      })
      .immediate();
    writePrivateFile(this.operatorTokenFile, `${token}\n`);
  }
}

/** Read-only access for the CLI while a room process may be running. Never takes the lock. */
export class RoomReader {
  readonly db: Database.Database;
  readonly participants: ParticipantRepo;
  readonly events: EventRepo;
  readonly tasks: TaskRepo;

  private constructor(
    readonly location: RoomLocation,
    db: Database.Database,
  ) {
    this.db = db;
    this.participants = new ParticipantRepo(db);
    this.events = new EventRepo(db);
    this.tasks = new TaskRepo(db);
  }

  static open(options: { markdown?: string | undefined; paths?: Paths } = {}): RoomReader {
    const paths = options.paths ?? resolvePaths();
    const location = locateRoom(options.markdown, paths);
    checkDatabaseFiles(location.databasePath);
    if (!fs.existsSync(location.databasePath)) {
      throw new RoomError('NOT_FOUND', `no room at ${location.databasePath}: start it once with "commonroom serve --room ${location.markdownPath}"`);
    }
    const db = new Database(location.databasePath, { readonly: true, fileMustExist: true, timeout: 5000, ...sqliteBindingOptions() });
    return new RoomReader(location, db);
  }

  /** Who holds the room, when a live process does. */
  static holderOf(location: RoomLocation): RunnerRecord | null {
    if (!fs.existsSync(location.databasePath)) return null;
    let db: Database.Database | undefined;
    try {
      db = new Database(location.databasePath, { readonly: true, fileMustExist: true, timeout: 1000, ...sqliteBindingOptions() });
      const runner = readRunner(db);
      return runner && processAlive(runner.pid) ? runner : null;
    } catch {
      return null;
    } finally {
      db?.close();
    }
  }

  get roomId(): string | null {
    return (this.db.prepare("SELECT value FROM meta WHERE key = 'room_id'").get() as { value: string } | undefined)?.value ?? null;
  }

  get schemaVersion(): number {
    return schemaVersionOf(this.db);
  }

  /**
   * The live room process serving this room, if any. Decided from the holder record and the pid, without
   * touching the lock (a reader must never make a starting writer fail); a stale answer after pid reuse
   * only costs the caller a refused connection.
   */
  runningProcess(): RunnerRecord | null {
    const runner = readRunner(this.db);
    return runner && runner.endpoint !== null && processAlive(runner.pid) ? runner : null;
  }

  close(): void {
    this.db.close();
  }
}
