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
type NodePtyTerminal = ReturnType<typeof NodePty.spawn>;
type DataListener = (bytes: Buffer) => void;

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
  return new PtyTerminal(term);
}

const neutered = () => undefined;

/**
 * One node-pty terminal as a `Terminal`: its methods on the class, not a closure each (a room of idle shells pays
 * for every closure a shell keeps), its listeners in sets made with the first one.
 */
class PtyTerminal implements Terminal {
  readonly pid: number;
  private destroyed = false;
  private readAheadBytes = 0;
  /** Its listeners, each with whether it borrows (one reader of the master, fanned out: all see the same chunks). */
  private dataListeners: Map<DataListener, boolean> | undefined;
  private exitListeners: Set<(exit: TerminalExit) => void> | undefined;

  constructor(private readonly term: NodePtyTerminal) {
    this.pid = term.pid;
    term.onExit(({ exitCode, signal }) => {
      this.neuter();
      const exit: TerminalExit = signal ? { exitCode: null, signal: signalName(signal) } : { exitCode, signal: null };
      for (const listener of [...(this.exitListeners ?? [])]) listener(exit);
      this.destroy();
    });
    // on Unix the master is read into a buffer of ours (pty-reading.ts); node-pty's own stream stays the fallback
    const ownBuffer = readOwnBuffer(term, (view) => this.deliverView(view), () => this.readAheadBytes, () => this.destroyed);
    const readMore = ownBuffer ? null : readAheadOf(term, () => this.destroyed);
    term.onData((data: string | Buffer) => {
      let bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      if (readMore && this.readAheadBytes > 0) bytes = readMore(bytes, this.readAheadBytes);
      this.deliver(bytes);
    });
    drainBeforeDestroy(term, (bytes) => this.deliver(bytes));
  }

  write(data: string): void {
    if (!this.destroyed) this.term.write(data);
  }

  resize(cols: number, rows: number): void {
    if (!this.destroyed) this.term.resize(cols, rows);
  }

  pause(): void {
    if (!this.destroyed) this.term.pause();
  }

  resume(): void {
    if (!this.destroyed) this.term.resume();
  }

  readAhead(maxBytes: number): void {
    this.readAheadBytes = Math.max(0, maxBytes);
  }

  onData(listener: DataListener, options?: { borrow?: boolean }): () => void {
    (this.dataListeners ??= new Map()).set(listener, options?.borrow === true);
    return () => this.dataListeners?.delete(listener);
  }

  onExit(listener: (exit: TerminalExit) => void): () => void {
    (this.exitListeners ??= new Set()).add(listener);
    return () => this.exitListeners?.delete(listener);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.neuter();
    try {
      (this.term as unknown as Killable).destroy?.();
    } catch {
      // already closed
    }
  }

  /**
   * Once the child is reaped its pid may be reused, and node-pty's own teardown sends SIGHUP: it must never
   * signal anything; process trees are ended by tag and process group (process-tree.ts).
   */
  private neuter(): void {
    (this.term as unknown as Killable).kill = neutered;
  }

  private deliver(bytes: Buffer): void {
    if (this.dataListeners) for (const listener of [...this.dataListeners.keys()]) listener(bytes);
  }

  /** `view` is valid only during the call: borrowing listeners get it, the others one copy of it. */
  private deliverView(view: Buffer): void {
    if (!this.dataListeners) return;
    let copy: Buffer | undefined;
    for (const [listener, borrows] of [...this.dataListeners]) listener(borrows ? view : (copy ??= Buffer.from(view)));
  }
}

/**
 * `term` as someone who only watches it and types into it sees it: everything but `destroy`, which does nothing
 * (a tty graph stage's terminal, shown as a shell: the graphs runtime owns it and frees it).
 */
export function watchedTerminal(term: Terminal): Terminal {
  return {
    get pid() {
      return term.pid;
    },
    write: (data) => term.write(data),
    resize: (cols, rows) => term.resize(cols, rows),
    ...(term.pause ? { pause: () => term.pause?.() } : {}),
    ...(term.resume ? { resume: () => term.resume?.() } : {}),
    ...(term.readAhead ? { readAhead: (maxBytes: number) => term.readAhead?.(maxBytes) } : {}),
    onData: (listener, options) => term.onData(listener, options),
    onExit: (listener) => term.onExit(listener),
    destroy: () => undefined,
  };
}
