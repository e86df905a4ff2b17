import type * as NodePty from 'node-pty';
import { createRequire } from 'node:module';
import os from 'node:os';
import { drainBeforeDestroy, readAheadOf, readOwnBuffer } from './pty-reading';

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
  /**
   * Output as it arrives, raw. Returns an unsubscribe. `borrow`: the listener copies what it keeps before it
   * returns (the shell's ring does), so it may be handed a view of the reader's own buffer, valid only during
   * the call, instead of a copy of each chunk.
   */
  onData(listener: (bytes: Buffer) => void, options?: { borrow?: boolean }): () => void;
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
  // one reader of the master, fanned out: every listener sees the same chunks, read ahead once
  const dataListeners = new Map<(bytes: Buffer) => void, boolean>();
  let readAheadBytes = 0;
  const deliver = (bytes: Buffer) => {
    for (const listener of [...dataListeners.keys()]) listener(bytes);
  };
  /** `view` is valid only during the call: borrowing listeners get it, the others one copy of it. */
  const deliverView = (view: Buffer) => {
    let copy: Buffer | undefined;
    for (const [listener, borrows] of [...dataListeners]) listener(borrows ? view : (copy ??= Buffer.from(view)));
  };
  // on Unix the master is read into a buffer of ours (pty-reading.ts); node-pty's own stream stays the fallback
  const ownBuffer = readOwnBuffer(term, deliverView, () => readAheadBytes, () => destroyed);
  const readMore = ownBuffer ? null : readAheadOf(term, () => destroyed);
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
    onData: (listener, options) => {
      dataListeners.set(listener, options?.borrow === true);
      return () => dataListeners.delete(listener);
    },
    onExit: (listener) => {
      exitListeners.add(listener);
      return () => exitListeners.delete(listener);
    },
    destroy,
  };
}
