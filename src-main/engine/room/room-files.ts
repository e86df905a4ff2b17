import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { RoomError } from '../../common/errors';
import { databasePathFor, defaultRoomMarkdown, lockPathFor, type Paths } from '../config';
import { checkPrivateFile, ensurePrivateDir, FILE_MODE } from '../fs-safe';
import { sqliteBindingOptions } from '../store/native-binding';

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

/** Resolves where a room's files are. A given markdown file's folder must exist; the default room's is made. */
export function locateRoom(markdown: string | undefined, paths: Paths): RoomLocation {
  const markdownPath = path.resolve(markdown ?? defaultRoomMarkdown(paths));
  const dir = path.dirname(markdownPath);
  if (markdown === undefined) {
    ensurePrivateDir(paths.dataDir); // the runner's own root, as well as the rooms folder in it
    ensurePrivateDir(dir);
  }
  else if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
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

/** The database of an existing room, opened read-only (SQLite refuses writes on it); absent: NOT_FOUND. */
export function openReaderDatabase(location: RoomLocation): Database.Database {
  checkDatabaseFiles(location.databasePath);
  if (!fs.existsSync(location.databasePath)) {
    throw new RoomError('NOT_FOUND', `no room at ${location.databasePath}: start it once with "commonroom serve --room ${location.markdownPath}"`);
  }
  return new Database(location.databasePath, { readonly: true, fileMustExist: true, timeout: 5000, ...sqliteBindingOptions() });
}
