import fs from 'node:fs';
import type { LogRecord, LogSlice } from '../../../common/methods/graphs';

/** A log slice as the engine reads it: `cursor` is the byte offset after the slice (callers get it encoded as nextCursor). */
export type ByteLogSlice = Omit<LogSlice, 'nextCursor'> & { cursor: number };
import { RoomError } from '../../../common/errors';
import { checkPrivateFile, FILE_MODE, readAt, readPrivateBuffer } from '../../core/fs-safe';
import { restrictToUser } from '../../platform/private-acl';
import { utf8Decoder } from '../../terminal/utf8';

/**
 * A stage's log: one JSON record per line, {q: seq, s: o|e|r, t: time, d: text}, appended in arrival order
 * from stdout, stderr and the runner's own notes. Lines make a torn last record (after kill -9) easy to drop
 * rather than misparse. The file is created 0600 with O_EXCL|O_NOFOLLOW in a 0700 folder; once `capBytes`
 * is reached, later output is dropped and one runner record says so. When a write fails (a full disk), the
 * writer stops writing, counts what it could not write and tells its owner once (the supervisor ends the stage
 * with DISK_FULL); when it closes it tries to leave one runner record saying how much was lost.
 */
const STREAM_CODE = { stdout: 'o', stderr: 'e', runner: 'r' } as const;
const STREAM_NAME: Record<string, LogRecord['stream']> = { o: 'stdout', e: 'stderr', r: 'runner' };
/** Keeps every record (even all-escaped text) well under any read window. */
const MAX_RECORD_CHARS = 4096;

export class StageLogWriter {
  private fd: number | null;
  private seq = 0;
  private bytes = 0;
  private capped = false;
  /** The first failed write (nothing is written after it), and how many bytes of records were not written. */
  private failedWith: NodeJS.ErrnoException | undefined;
  private lostBytes = 0;
  private readonly decoders = { stdout: utf8Decoder(), stderr: utf8Decoder() };

  private constructor(
    readonly path: string,
    fd: number,
    private readonly capBytes: number,
    private readonly now: () => string,
    private readonly onAppend: (() => void) | undefined,
    private readonly onFailure: ((error: NodeJS.ErrnoException) => void) | undefined,
  ) {
    this.fd = fd;
  }

  /**
   * Creates the log file, empty, and returns its descriptor; refuses anything already at the path (a planted
   * symlink included). The runner may create a stage's log ahead of its start (`create` then takes the fd).
   */
  static createFile(path: string): number {
    let fd: number;
    try {
      fd = fs.openSync(
        path,
        fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
        FILE_MODE,
      );
    } catch (error) {
      // O_EXCL refuses whatever is at the path (a symlink included, never followed): say what is there
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && checkPrivateFile(path) === 'present') {
        throw new RoomError('ROOM_UNSAFE', `${path} already exists; a stage log is always a new file: remove it and run again`);
      }
      throw error;
    }
    try {
      restrictToUser(path, 'file');
    } catch (error) {
      // not left behind: a later create of this log (O_EXCL) would take it for a planted file
      fs.closeSync(fd);
      fs.rmSync(path, { force: true });
      throw error;
    }
    return fd;
  }

  /** The log's writer: on the file `createFile` made (`fd`), or on a new one. */
  static create(
    path: string,
    capBytes: number,
    now: () => string,
    onAppend?: () => void,
    onFailure?: (error: NodeJS.ErrnoException) => void,
    fd: number = StageLogWriter.createFile(path),
  ): StageLogWriter {
    return new StageLogWriter(path, fd, capBytes, now, onAppend, onFailure);
  }

  /**
   * Raw bytes from a pipe or a PTY: decoded so a UTF-8 character split across chunks stays whole. Returns the
   * text; a caller with no use for it (`wantText` false) gets '' once the log keeps nothing more, and the
   * dropped bytes are then not decoded at all (a stage writing far past its cap costs the runner little).
   */
  writeBytes(stream: 'stdout' | 'stderr', chunk: Buffer, wantText = true): string {
    if (!wantText && (this.fd === null || this.capped)) return '';
    const text = this.decoders[stream].write(chunk);
    if (text.length > 0) this.write(stream, text);
    return text;
  }

  /** Appends `text` as records of at most MAX_RECORD_CHARS each, in one write (the readers' signal once). */
  write(stream: LogRecord['stream'], text: string): void {
    if (this.fd === null || this.capped) return;
    if (this.failedWith) {
      this.lostBytes += Buffer.byteLength(text);
      return;
    }
    let lines = '';
    let size = this.bytes;
    const at = this.now();
    for (let i = 0; i < text.length && !this.capped; i += MAX_RECORD_CHARS) {
      let line = this.record(STREAM_CODE[stream], at, text.slice(i, i + MAX_RECORD_CHARS));
      const length = Buffer.byteLength(line);
      if (size + length > this.capBytes) {
        this.capped = true;
        line = this.record('r', at, `[log reached its cap of ${this.capBytes} bytes: later output is dropped]`);
      }
      size += length;
      lines += line;
    }
    try {
      this.bytes += fs.writeSync(this.fd, lines);
      // the in-process "grew" signal: readers following the log wait on it, never on a timer
      this.onAppend?.();
    } catch (error) {
      // a full disk must not take the runner down: stop writing (a partial record may be left; readers drop
      // it), and tell the owner once; one line in the runner's log, no stack
      this.failedWith = error as NodeJS.ErrnoException;
      this.lostBytes += Buffer.byteLength(text);
      console.error(`[graphs] writing ${this.path} failed (${this.failedWith.code ?? this.failedWith.message}): the stage is ended`);
      this.onFailure?.(this.failedWith);
    }
  }

  private record(stream: string, at: string, text: string): string {
    return `${JSON.stringify({ q: ++this.seq, s: stream, t: at, d: text })}\n`;
  }

  /** Why writing this log failed, if it did. */
  get failure(): NodeJS.ErrnoException | undefined {
    return this.failedWith;
  }

  close(): void {
    if (this.fd === null) return;
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.decoders[stream].end();
      if (rest.length > 0) this.write(stream, rest);
    }
    const fd = this.fd;
    this.fd = null;
    if (this.failedWith) {
      // best effort (space may be back by now): a reader sees that output is missing, not a log that just stops
      const note = `[${this.lostBytes} bytes of output were not logged: writing this log failed (${this.failedWith.code ?? 'I/O error'})]`;
      try {
        fs.writeSync(fd, `\n${JSON.stringify({ q: ++this.seq, s: 'r', t: this.now(), d: note })}\n`);
      } catch {
        // still failing: the stage's errorCode says what happened
      }
    }
    // the records are written (readers see them now); the fsync only narrows the crash window, so it runs on
    // libuv's thread pool and the file is closed after it, instead of blocking the tick ~10 ms per stage
    fs.fsync(fd, () => fs.close(fd, () => undefined));
  }
}

/** Reads a stage log file the runner wrote (refusing symlinks and wide modes). Missing: empty. */
export function readLogFile(path: string): Buffer {
  return readPrivateBuffer(path) ?? Buffer.alloc(0);
}

/**
 * A bounded slice of a log. The cursor is a byte offset: without one, the tail (the last `maxBytes`, from a
 * record boundary); with one, from there on. Only whole records are returned; an unparsable line (a torn
 * write) is skipped.
 */
export function sliceLog(buf: Buffer, cursor: number | undefined, maxBytes: number, spooled: boolean): ByteLogSlice {
  return sliceWindow(buf, 0, buf.length, cursor, maxBytes, spooled);
}

/** One record is at most ~6 × MAX_RECORD_CHARS bytes (all escaped): a window this much larger always holds one. */
const WINDOW_SLACK = 6 * MAX_RECORD_CHARS + 256;

/**
 * The bytes of a log file from the offset `span` picks for its size, at most as many as it says; null when there
 * is no file (refusing symlinks and wide modes, as every read of a log does).
 */
function readLogWindow(path: string, span: (size: number) => { from: number; length: number }): { window: Buffer; from: number; size: number } | null {
  if (checkPrivateFile(path) === 'absent') return null;
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const size = fs.fstatSync(fd).size;
    const { from, length } = span(size);
    return { window: readAt(fd, from, length), from, size };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The same slice read straight from a log file, touching only the bytes it needs (a tail of an 8 MiB log
 * reads kilobytes, not the whole file). Missing file: an empty slice.
 */
export function readLogSlice(path: string, cursor: number | undefined, maxBytes: number): ByteLogSlice {
  const read = readLogWindow(path, (size) => {
    const from = cursor === undefined ? Math.max(0, size - maxBytes - 1) : Math.min(cursor, size);
    return { from, length: Math.min(size - from, maxBytes + WINDOW_SLACK) };
  });
  if (!read) return { records: [], cursor: 0, more: false, size: 0, spooled: false };
  return sliceWindow(read.window, read.from, read.size, cursor, maxBytes, false);
}

/**
 * A log's whole records as its file holds them, byte for byte, from byte `offset` (at most `maxBytes`, cut after
 * the last whole record): what a room copies of a stage its node ran, without parsing a record on either side.
 * `next` is the offset after them, `size` the file's size now. Missing file (not started yet, or spooled and
 * removed): null, and tasks_status says which.
 */
export function readRawLog(path: string, offset: number, maxBytes: number): { text: string; next: number; size: number } | null {
  let read: ReturnType<typeof readLogWindow>;
  try {
    read = readLogWindow(path, (size) => {
      const from = Math.min(offset, size);
      return { from, length: Math.min(size - from, maxBytes) };
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // spooled since it was looked for
    throw error;
  }
  if (!read) return null;
  const whole = read.window.lastIndexOf(0x0a) + 1;
  return { text: read.window.subarray(0, whole).toString('utf8'), next: read.from + whole, size: read.size };
}

/** `window` holds the log's bytes from offset `base`; offsets in and out are absolute. */
function sliceWindow(window: Buffer, base: number, size: number, cursor: number | undefined, maxBytes: number, spooled: boolean): ByteLogSlice {
  const at = (abs: number) => abs - base;
  let start: number;
  if (cursor === undefined) {
    start = Math.max(0, size - maxBytes);
    if (start > 0) {
      const nl = window.indexOf(0x0a, at(start - 1));
      start = nl < 0 ? size : base + nl + 1;
    }
  } else start = Math.min(cursor, size);
  const windowEnd = base + window.length;
  let end = Math.min(windowEnd, start + maxBytes);
  const lastNl = end > start ? window.lastIndexOf(0x0a, at(end - 1)) : -1;
  if (lastNl >= 0 && base + lastNl >= start) end = base + lastNl + 1;
  else {
    // one record longer than the window: return it whole rather than stall the reader
    const nl = window.indexOf(0x0a, at(start));
    end = nl < 0 ? start : base + nl + 1;
  }
  const records: LogRecord[] = [];
  for (const line of window.subarray(at(start), at(end)).toString('utf8').split('\n')) {
    if (line.length === 0) continue;
    try {
      const r = JSON.parse(line) as { q: number; s: string; t: string; d: string };
      const stream = STREAM_NAME[r.s];
      if (stream && typeof r.d === 'string') records.push({ seq: r.q, stream, at: r.t, text: r.d });
    } catch {
      // a torn last record from a crash: dropped, never misparsed
    }
  }
  return { records, cursor: end, more: end < size, size, spooled };
}
