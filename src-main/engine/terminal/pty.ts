import type * as NodePty from 'node-pty';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';

let nodePty: typeof NodePty | undefined;
/** node-pty (native, CommonJS) is loaded on the first terminal, not when the room process starts. */
function pty(): typeof NodePty {
  nodePty ??= createRequire(import.meta.url)('node-pty') as typeof NodePty;
  return nodePty;
}

/**
 * The runner's one terminal model, and the only importer of node-pty (an ESLint rule keeps it so). Shells and
 * tty graph stages both get a `Terminal`: raw output bytes (so cursors are exact byte offsets and a UTF-8
 * character split across reads is never mangled), text only through `utf8Decoder`, and exits with one
 * `signalName`.
 */

/** How a terminal's process ended: an exit code, or the signal that killed it (never both). */
export interface TerminalExit {
  exitCode: number | null;
  signal: string | null;
}

export interface Terminal {
  readonly pid: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Output as it arrives, raw. Returns an unsubscribe. */
  onData(listener: (bytes: Buffer) => void): () => void;
  /** Called once when the process exited (after its last output). Returns an unsubscribe. */
  onExit(listener: (exit: TerminalExit) => void): () => void;
  /** Frees the PTY's descriptor; never signals anything (process trees are ended by tag, not here). */
  destroy(): void;
  /** Stop / restart reading the PTY (the writer blocks meanwhile): backpressure from a live viewer. */
  pause?(): void;
  resume?(): void;
  /**
   * After each PTY read, read on at once what is already waiting, up to `maxBytes` more, and hand it over as
   * one chunk (0, the default: off). See `readAhead` below for why.
   */
  readAhead?(maxBytes: number): void;
}

export interface TerminalSpawn {
  file: string;
  /** An argv array, or (Windows only) a command line passed to the program as written. */
  args: string[] | string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  cols: number;
  rows: number;
}

/** The name of signal number `n` (`SIGTERM`), `SIG<n>` for one this platform does not name, null for none. */
export function signalName(n: number | null | undefined): string | null {
  if (!n) return null;
  const entry = Object.entries(os.constants.signals).find(([, v]) => v === n);
  return entry ? entry[0] : `SIG${n}`;
}

export { utf8Decoder, type Utf8Decoder } from './utf8';

type Killable = { kill: (signal?: string) => void; destroy?: () => void };
/** node-pty's UnixTerminal internals read here: the master's descriptor and the stream libuv reads it with. */
type UnixInternals = {
  _fd?: unknown;
  _socket?: { readableLength?: number; isPaused?: () => boolean; read?: () => unknown; destroy?: (...args: unknown[]) => unknown };
};

/** Most a read-ahead takes in one go (shells ask for at most this much). */
const READ_AHEAD_MAX = 64 * 1024;
/** Most handed over from the descriptor when the stream is destroyed (far above what a PTY's kernel buffers hold). */
const DRAIN_MAX = 1024 * 1024;
/** What one read of a Linux PTY master gives while output waits (the line discipline's 4 KiB buffer, less one). */
const FULL_PTY_READ = 4095;

/**
 * A PTY read gives at most what the line discipline holds (≈ 4 KiB on Linux), and libuv reads a descriptor
 * once per event-loop turn. When the loop is busy (building a large answer), the writer fills the kernel's
 * small buffer and blocks, and afterwards every 4 KiB costs a whole loop turn. Reading on synchronously from the
 * same (non-blocking: node-pty sets O_NONBLOCK on the master) descriptor until it is empty takes what waits in
 * one turn, in order: only this thread reads it, and only while node-pty's stream holds nothing back (not
 * paused, nothing buffered), so no byte can overtake an earlier one. Measured with raw node-pty and a loop
 * busy 10 ms in 20: 3.1 → 5.5 MiB/s. Unix only (Windows' ConPTY is a pipe with its own reader).
 */
function readAheadOf(term: unknown, isDestroyed: () => boolean): ((chunk: Buffer, maxBytes: number) => Buffer) | null {
  const internals = term as UnixInternals;
  const fd = internals._fd;
  const socket = internals._socket;
  if (process.platform === 'win32' || typeof fd !== 'number' || !socket) return null;
  let scratch: Buffer | null = null;
  return (chunk, maxBytes) => {
    if (maxBytes <= 0 || isDestroyed() || (socket.readableLength ?? 1) > 0 || socket.isPaused?.() !== false) return chunk;
    scratch ??= Buffer.allocUnsafe(READ_AHEAD_MAX);
    const budget = Math.min(scratch.length, maxBytes);
    let filled = 0;
    while (filled < budget) {
      let n = 0;
      try {
        n = fs.readSync(fd, scratch, filled, budget - filled, null);
      } catch {
        break; // EAGAIN: nothing waits; EIO: the other side closed, which libuv's own read reports next
      }
      if (n <= 0) break;
      filled += n;
      // a read shorter than the line discipline's buffer emptied what waited: one more would most often fail
      // with EAGAIN, which costs an exception (a stack captured) every time; the writer's next bytes come with
      // the next loop turn
      if (n < FULL_PTY_READ) break;
    }
    if (filled === 0) return chunk;
    const out = Buffer.allocUnsafe(chunk.length + filled);
    chunk.copy(out, 0);
    scratch.copy(out, chunk.length, 0, filled);
    return out;
  };
}

/**
 * node-pty reports an exit only after its stream closed, but when the stream has not hit the end of the
 * output within 200 ms of the exit it destroys the stream, and what was still unread is lost: always while
 * the terminal is paused (a slow viewer's backpressure, so the command's last lines never reach the ring),
 * and now and then on a loaded machine (the kernel hands the last write to the master a moment after the
 * exit). Before the stream is destroyed, this hands over what it holds and what still waits on the
 * descriptor (a read after the other side closed gives the rest, then fails), so `onExit` really comes after
 * the last output. Unix only; a no-op when node-pty's internals are not as expected.
 */
function drainBeforeDestroy(term: unknown, deliver: (bytes: Buffer) => void): void {
  const internals = term as UnixInternals;
  const fd = internals._fd;
  const socket = internals._socket;
  if (process.platform === 'win32' || typeof fd !== 'number' || !socket || typeof socket.destroy !== 'function') return;
  const destroySocket = socket.destroy;
  let drained = false;
  socket.destroy = function (this: unknown, ...args: unknown[]) {
    if (!drained) {
      drained = true;
      try {
        // what the stream already read but holds back (paused): read() hands each chunk to the data listeners
        while (socket.read?.() != null);
        // bounded: a program still running (destroyed before its exit) could keep writing as fast as this reads
        const scratch = Buffer.allocUnsafe(READ_AHEAD_MAX);
        for (let total = 0; total < DRAIN_MAX; ) {
          const n = fs.readSync(fd, scratch, 0, scratch.length, null);
          if (n <= 0) break;
          total += n;
          deliver(Buffer.from(scratch.subarray(0, n)));
        }
      } catch {
        // EIO (everything was read), EAGAIN (nothing waits) or EBADF (already closed): nothing more to hand over
      }
    }
    return destroySocket.apply(this, args);
  };
}

/**
 * Spawns `file` in a PTY, in its own session and process group. Throws when it cannot be started. Once the
 * process exited and every exit listener heard it, the PTY is freed.
 */
export function spawnTerminal(spec: TerminalSpawn): Terminal {
  const term = pty().spawn(spec.file, spec.args, {
    name: 'xterm-256color',
    cols: spec.cols,
    rows: spec.rows,
    cwd: spec.cwd,
    env: spec.env as Record<string, string>,
    encoding: null,
  });
  const raw = term as unknown as Killable;
  // once the child is reaped its pid may be reused, and node-pty's own teardown sends SIGHUP: it must never
  // signal anything; process trees are ended by tag and process group (process-tree.ts)
  const neuter = () => (raw.kill = () => undefined);
  let destroyed = false;
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    neuter();
    try {
      raw.destroy?.();
    } catch {
      // already closed
    }
  };
  const exitListeners = new Set<(exit: TerminalExit) => void>();
  term.onExit(({ exitCode, signal }) => {
    neuter();
    const exit: TerminalExit = signal ? { exitCode: null, signal: signalName(signal) } : { exitCode, signal: null };
    for (const listener of [...exitListeners]) listener(exit);
    destroy();
  });
  // one subscription to node-pty, fanned out: every listener sees the same chunks, read ahead once
  const dataListeners = new Set<(bytes: Buffer) => void>();
  const readMore = readAheadOf(term, () => destroyed);
  let readAheadBytes = 0;
  const deliver = (bytes: Buffer) => {
    for (const listener of [...dataListeners]) listener(bytes);
  };
  term.onData((data: string | Buffer) => {
    let bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (readMore && readAheadBytes > 0) bytes = readMore(bytes, readAheadBytes);
    deliver(bytes);
  });
  drainBeforeDestroy(term, deliver);
  return {
    pid: term.pid,
    write: (data) => {
      if (!destroyed) term.write(data);
    },
    resize: (cols, rows) => {
      if (!destroyed) term.resize(cols, rows);
    },
    pause: () => {
      if (!destroyed) term.pause();
    },
    resume: () => {
      if (!destroyed) term.resume();
    },
    readAhead: (maxBytes) => {
      readAheadBytes = Math.max(0, maxBytes);
    },
    onData: (listener) => {
      dataListeners.add(listener);
      return () => dataListeners.delete(listener);
    },
    onExit: (listener) => {
      exitListeners.add(listener);
      return () => exitListeners.delete(listener);
    },
    destroy,
  };
}
