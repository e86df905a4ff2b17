import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { RoomError } from '../../common/errors';
import { restrictToUser } from '../platform/private-acl';

/**
 * Files the runner creates are 0600 and its folders 0700, made with O_NOFOLLOW/O_EXCL so a planted
 * symlink is never followed. Existing files that are symlinks or readable by others are refused with a
 * message that says how to fix them. On Windows, where mode bits mean nothing, new folders and files are
 * restricted to the user by ACL instead (platform/private-acl.ts) and the mode checks are skipped. These
 * helpers are never used on the SQLite files themselves (opening and closing a descriptor on them would drop
 * SQLite's POSIX locks); those are only lstat-ed.
 */

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Windows reports 0666/0777 whatever the ACL says: there, privacy is the ACL set at creation. */
const modeBitsMeanSomething = process.platform !== 'win32';

/**
 * Creates `dir` (and missing parents) with 0700; refuses a symlink. An existing folder others can open is
 * tightened to 0700 when this user owns it (the runner says so on stderr), refused when another user does.
 */
export function ensurePrivateDir(dir: string): void {
  const missing: string[] = [];
  let cursor = path.resolve(dir);
  while (!fs.existsSync(cursor)) {
    missing.unshift(cursor);
    const parent = path.dirname(cursor);
    if (parent === cursor) break;
    cursor = parent;
  }
  for (const d of missing) {
    try {
      fs.mkdirSync(d, { mode: DIR_MODE });
      restrictToUser(d, 'dir');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const st = fs.lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new RoomError('ROOM_UNSAFE', `${dir} is not a plain folder (a symlink or a file): remove it and start again`);
  }
  if (missing.includes(path.resolve(dir))) fs.chmodSync(dir, DIR_MODE);
  else if (modeBitsMeanSomething && (st.mode & 0o077) !== 0) {
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
      throw new RoomError('ROOM_UNSAFE', `${dir} can be opened by other users and belongs to another user: run "chmod 700 ${dir}" as its owner, or move it away, and start again`);
    }
    fs.chmodSync(dir, DIR_MODE);
    console.error(`[fs] tightened ${dir} from ${(st.mode & 0o777).toString(8).padStart(4, '0')} to 0700: it holds Commonroom's private files`);
  }
}

/**
 * Checks a path the runner owns before use: absent is fine; a symlink, a non-file, or a file with group or
 * other permissions is refused.
 */
export function checkPrivateFile(file: string): 'absent' | 'present' {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw error;
  }
  if (st.isSymbolicLink()) {
    throw new RoomError('ROOM_UNSAFE', `${file} is a symlink; the runner never follows one: remove it and start again`);
  }
  if (!st.isFile()) throw new RoomError('ROOM_UNSAFE', `${file} is not a regular file: move it away and start again`);
  if (modeBitsMeanSomething && (st.mode & 0o077) !== 0) {
    throw new RoomError('ROOM_UNSAFE', `${file} can be read by other users: run "chmod 600 ${file}" and start again`);
  }
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new RoomError('ROOM_UNSAFE', `${file} belongs to another user: the runner only uses files it owns`);
  }
  return 'present';
}

/**
 * Writes a file atomically: a fresh 0600 temp file (O_EXCL|O_NOFOLLOW), fsync, then rename (and its folder
 * synced), so a reader sees the old file or the whole new one, and a power loss after this returns keeps it.
 */
export function writePrivateFile(file: string, content: string | Buffer): void {
  writePrivateFileBy(file, (append) => append(content));
}

/**
 * `writePrivateFile` for content made piece by piece (`write` appends each, never holding the whole): a file of
 * many parts costs one create and one fsync. A failure leaves the old file (or none) and no temp file.
 */
export function writePrivateFileBy(file: string, write: (append: (part: string | Buffer) => void) => void): void {
  ensurePrivateDir(path.dirname(file));
  checkPrivateFile(file);
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  const fd = fs.openSync(
    tmp,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    FILE_MODE,
  );
  try {
    try {
      write((part) => fs.writeFileSync(fd, part));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    restrictToUser(tmp, 'file');
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  // the rename itself is durable once its folder is synced (Windows has no folder descriptor to sync)
  if (process.platform !== 'win32') {
    const dir = fs.openSync(path.dirname(file), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    try {
      fs.fsyncSync(dir);
    } finally {
      fs.closeSync(dir);
    }
  }
}

/** `length` bytes from `offset` of a file the runner wrote (refusing symlinks and wide modes); null when absent. */
export function readPrivateRange(file: string, offset: number, length: number): Buffer | null {
  if (checkPrivateFile(file) === 'absent') return null;
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    return readAt(fd, offset, length);
  } finally {
    fs.closeSync(fd);
  }
}

/** Up to `length` bytes from `offset` of an open file (fewer where it ends first). */
export function readAt(fd: number, offset: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, out, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return out.subarray(0, got);
}

/** Reads a file the runner wrote, refusing symlinks and wide modes. Returns null when absent. */
export function readPrivateBuffer(file: string): Buffer | null {
  if (checkPrivateFile(file) === 'absent') return null;
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function readPrivateFile(file: string): string | null {
  return readPrivateBuffer(file)?.toString('utf8') ?? null;
}

/**
 * A folder the room alone fills, in its data folder (shell-integration/, sandbox/, agent-runs/): made 0700 like
 * `ensurePrivateDir`, but an entry that is not a folder of ours (a symlink, a file someone put there) is
 * removed first, never followed, so a planted link neither redirects the room's writes nor stops its shells.
 */
export function ensureOwnDir(dir: string): void {
  const st = lstatOrNull(dir);
  if (st && (st.isSymbolicLink() || !st.isDirectory() || !ownedByMe(st))) {
    fs.rmSync(dir, { recursive: true, force: true }); // removes a link itself, never what it points at
    console.error(`[fs] replaced ${dir}: it was ${describeEntry(st)}, not the room's own folder`);
  }
  ensurePrivateDir(dir);
}

/**
 * Makes `file` hold exactly `content` with exactly `mode`, never following a link: what is there is lstat-ed
 * and kept only when it is this user's regular file with that mode and that content (read through
 * O_NOFOLLOW, and checked to be the file lstat saw). Anything else — a symlink, a folder, another's file,
 * other bytes or mode — is replaced by a fresh file (O_EXCL|O_NOFOLLOW) renamed over it, so a reader (a
 * shell sourcing it, bubblewrap binding it) sees only what the room wrote. Its folder must be one the room
 * made (`ensureOwnDir`). Returns whether it wrote.
 */
export function ensureExactFile(file: string, content: string | Buffer, mode: number = FILE_MODE): 'kept' | 'written' {
  const want = typeof content === 'string' ? Buffer.from(content) : content;
  const st = lstatOrNull(file);
  if (st && isExactly(file, st, want, mode)) return 'kept';
  if (st && st.isDirectory()) {
    fs.rmSync(file, { recursive: true, force: true });
    console.error(`[fs] replaced ${file}: it was a folder; the room keeps a file there`);
  }
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode);
  try {
    try {
      fs.writeFileSync(fd, want);
      if (modeBitsMeanSomething) fs.fchmodSync(fd, mode); // the umask may have narrowed it
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    restrictToUser(tmp, 'file');
    fs.renameSync(tmp, file); // replaces a link itself, never its target
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  return 'written';
}

/**
 * Creates a new private file (0600) holding `content`: O_CREAT|O_EXCL|O_NOFOLLOW, so an entry already there
 * (a planted link above all) is refused, never followed.
 */
export function createPrivateFile(file: string, content: string | Buffer): void {
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, FILE_MODE);
  try {
    fs.writeFileSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  restrictToUser(file, 'file');
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function ownedByMe(st: fs.Stats): boolean {
  return typeof process.getuid !== 'function' || st.uid === process.getuid();
}

function describeEntry(st: fs.Stats): string {
  if (st.isSymbolicLink()) return 'a symlink';
  if (!st.isDirectory()) return 'not a folder';
  return "another user's folder";
}

/** Whether the entry lstat saw is this user's regular file, its only name, with `mode` and the bytes `want`. */
function isExactly(file: string, st: fs.Stats, want: Buffer, mode: number): boolean {
  // (a second name for it — a hard link someone kept — would let them change it after this check)
  if (!st.isFile() || !ownedByMe(st) || st.size !== want.length || st.nlink !== 1) return false;
  if (modeBitsMeanSomething && (st.mode & 0o7777) !== mode) return false;
  if (want.length === 0) return true; // (an empty file of mode 0 cannot be opened, and needs no reading)
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const now = fs.fstatSync(fd);
    if (now.ino !== st.ino || now.dev !== st.dev) return false; // swapped between the lstat and the open
    return readAt(fd, 0, want.length + 1).equals(want);
  } finally {
    fs.closeSync(fd);
  }
}

/** Runs `fn` with umask 077 so files SQLite creates are born 0600 (no window with wider modes). */
export function withPrivateUmask<T>(fn: () => T): T {
  const previous = process.umask(0o077);
  try {
    return fn();
  } finally {
    process.umask(previous);
  }
}

/** Whether `child` is `parent` or a path inside it (by their text: resolve links first where they matter). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
