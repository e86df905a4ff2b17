import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { RoomError } from '../../common/errors';
import type { Paths } from '../core/config';
import { databasePathFor, defaultRoomMarkdown, lockPathFor } from '../core/room-paths';
import { checkPrivateFile, ensurePrivateDir, FILE_MODE } from '../core/fs-safe';
import { openDatabase } from '../store/native-binding';

/** Where a room's files are and what its holder record says: shared by the writer and the readers. */
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

/**
 * Resolves where a room's files are. A given markdown file's folder must exist; the default room's is made
 * when `create` (a writer that may create the room); readers and "existing room only" openers touch nothing.
 */
export function locateRoom(markdown: string | undefined, paths: Paths, create = true): RoomLocation {
  const markdownPath = path.resolve(markdown ?? defaultRoomMarkdown(paths));
  const dir = path.dirname(markdownPath);
  if (markdown === undefined && create) {
    ensurePrivateDir(paths.dataDir); // the runner's own root, as well as the rooms folder in it
    ensurePrivateDir(dir);
  }
  else if (markdown !== undefined && (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())) {
    throw new RoomError('INVALID_INPUT', `the folder ${dir} does not exist: create it first, or pass another --room`);
  }
  if (!markdownPath.endsWith('.md')) {
    throw new RoomError('INVALID_INPUT', `a room is a markdown file: ${markdownPath} should end in .md`);
  }
  return { markdownPath, databasePath: databasePathFor(markdownPath), lockPath: lockPathFor(markdownPath) };
}

export function createMarkdownIfMissing(markdownPath: string): void {
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

export function checkDatabaseFiles(databasePath: string): void {
  for (const file of [databasePath, `${databasePath}-wal`, `${databasePath}-shm`]) checkPrivateFile(file);
}

export function readRunner(db: Database.Database): RunnerRecord | null {
  const row = db.prepare('SELECT pid, started_at, endpoint, token_file FROM runner WHERE id = 1').get() as
    | { pid: number; started_at: string; endpoint: string | null; token_file: string | null }
    | undefined;
  return row ? { pid: row.pid, startedAt: row.started_at, endpoint: row.endpoint, tokenFile: row.token_file } : null;
}

/**
 * The refusal for a room that does not exist. Only `commonroom serve` (and `ce init`) create a room, so a
 * mistyped --room never becomes a new room with a new operator token.
 */
export function noRoomError(location: RoomLocation, isDefault: boolean): RoomError {
  const room = isDefault ? '' : ` --room ${location.markdownPath}`;
  return new RoomError(
    'NOT_FOUND',
    `no room at ${location.markdownPath}${isDefault ? ' (your default room)' : ''}: start it with "commonroom serve${room}", ` +
      `or create it with "ce init${room}"${isDefault ? '' : '; or check the --room path for a typo'}`,
  );
}

/** Whether the room's database exists (it is made only by a writer allowed to create the room). */
export function roomExists(location: RoomLocation): boolean {
  return fs.existsSync(location.databasePath);
}

const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_READONLY_DIRECTORY', 'SQLITE_PERM']);

/**
 * A room in a folder this process may not write (or read) gets a refusal that names the folder and the fix,
 * instead of a bare EACCES or SQLITE_CANTOPEN. Anything else is passed through.
 */
export function explainFolderError(error: unknown, location: RoomLocation, reading: boolean): unknown {
  const code = (error as { code?: string }).code;
  if (code === undefined || !NOT_WRITABLE.has(code)) return error;
  const dir = path.dirname(location.markdownPath);
  const why = code === 'EROFS' ? 'it is on a read-only file system' : 'it is read-only, or not yours';
  if (reading) {
    return new RoomError(
      'UNAVAILABLE',
      `cannot open the room ${location.databasePath} (${code}): SQLite must create its ${path.basename(location.databasePath)}-shm file ` +
        `beside it, but the folder ${dir} ${why.replace(/^it is /, 'is ')}: make the folder writable (chmod u+rwx ${dir}), or move the room to a folder you own`,
    );
  }
  return new RoomError(
    'INVALID_INPUT',
    `cannot write in ${dir} (${code}): ${why}. A room keeps its database, lock and logs beside its markdown file: ` +
      `make the folder writable (chmod u+rwx ${dir}), or pick a room in a folder you own (--room ~/rooms/NAME.md)`,
  );
}

/** The database of an existing room, opened read-only (SQLite refuses writes on it); absent: NOT_FOUND. */
export function openReaderDatabase(location: RoomLocation, isDefault = false): Database.Database {
  checkDatabaseFiles(location.databasePath);
  if (!roomExists(location)) throw noRoomError(location, isDefault);
  let db: Database.Database | undefined;
  try {
    db = openDatabase(location.databasePath, { readonly: true, fileMustExist: true, timeout: 5000 });
    // opening is lazy about the WAL index: touch the schema so a folder that cannot hold -shm fails here
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return db;
  } catch (error) {
    db?.close();
    throw explainFolderError(error, location, true);
  }
}
