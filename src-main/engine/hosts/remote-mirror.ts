import { RoomError } from '../../common/errors';
import type { ShellView } from '../../common/methods/shells';
import { NODE_STREAM_HIGH } from '../../common/node-stream';
import { PtyShell } from '../shells/index';
import type { Terminal, TerminalExit } from '../terminal/pty';
import type { NodeLink, StreamListener } from './node-link';

/** Retries of a dropped stream: from this, doubling, up to the most. */
const RETRY_FIRST_MS = 500;
const RETRY_MOST_MS = 10_000;
/** Received bytes acknowledged at once from this many (fewer: a moment later). */
const ACK_EVERY = NODE_STREAM_HIGH / 4;

export interface MirrorOptions {
  /** The host's link (got again each time: the room may have closed its links). */
  link(): NodeLink;
  /** The participant of the node's room the shell runs as (undefined: the node's operator). */
  nodeAs: string | undefined;
  scrollbackBytes: number;
  /** How long a reader or a viewer that went quiet still holds the stream. */
  stallMs: number;
  now(): string;
  /** Output lost before it reached here (the node's own scrollback had moved on): `bytes` of it. */
  onGap(bytes: number): void;
  /** The node does not have the shell (any more): nothing is retried. */
  onGone(): void;
}

/**
 * The room's copy of a shell on a host: its node streams the output here (server/node-streams.ts) into a local
 * PtyShell over this "terminal", so cursor reads, waits (match, idle, exit, status), the screen and the app's live
 * views are served here like a local shell's, with no round trip to the host. Flow control end to end: the node
 * sends at most NODE_STREAM_HIGH bytes unacknowledged, and the copy stops acknowledging while a live viewer is
 * held back (its pause) or an agent reading by cursor would lose output to the ring — so the host's PTY pauses
 * and the program there blocks, as a local shell's does. A reader or viewer silent for `stallMs` stops holding.
 * A dropped link restarts the stream from the last offset received (retried with backoff); what the node's own
 * scrollback no longer held by then is a gap: the ring skips it (readers are told `truncated`), and `onGap`
 * says how many bytes.
 */
export class RemoteMirror implements Terminal {
  /** No process here: the shell's processes are the host's (never signalled from this side). */
  readonly pid = -1;
  readonly session: PtyShell;
  private readonly dataListeners = new Set<(bytes: Buffer) => void>();
  private readonly exitListeners = new Set<(exit: TerminalExit) => void>();
  private viewersHeld = false;
  private readerHeld = false;
  /** Bytes received and not yet acknowledged (while held). */
  private owed = 0;
  private live = false;
  private starting: Promise<void> | null = null;
  private pendingExit: { exit: TerminalExit; end: number } | null = null;
  private ended = false;
  private disposed = false;
  private reader: { cursor: number; at: number } | null = null;
  private readerTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_FIRST_MS;
  private ackTimer: NodeJS.Timeout | undefined;
  /** Bytes lost to gaps so far. */
  lost = 0;
  /** Whether any output arrived yet (a copy adopted after a restart starts at the node's oldest byte, silently). */
  private receivedAny = false;

  constructor(
    view: ShellView,
    private readonly options: MirrorOptions,
  ) {
    this.session = new PtyShell(
      {
        id: view.id,
        name: view.name,
        owner: view.owner,
        file: view.command[0] ?? 'remote',
        args: view.command.slice(1),
        cwd: view.cwd,
        env: {},
        cols: view.cols,
        rows: view.rows,
        tag: '',
        sandbox: view.sandbox,
        // an agent's terminal: its status read here with its client's rules, as the room's watch of it reads it
        agent: view.agent ?? undefined,
        // room for what is in flight when it holds (its viewers' hold margin is the stream's window, below), and
        // for a reader by cursor to read pages while the stream goes on (it holds at a window before the end)
        scrollbackBytes: Math.max(options.scrollbackBytes, 4 * NODE_STREAM_HIGH),
        // no line cap: the node's ring has one, and here it would drop lines a reader by cursor has yet to read
      },
      options.now(),
      this,
    );
    this.session.stallMs = options.stallMs;
    // a live view about to lose output holds the stream a whole window before the ring's end: what the node
    // already sent still fits
    this.session.holdMargin = NODE_STREAM_HIGH;
  }

  get id(): string {
    return this.session.id;
  }

  private get held(): boolean {
    return this.viewersHeld || this.readerHeld;
  }

  // ── Terminal (what the local PtyShell sees) ──
  /** Input goes to the host by shell_io (remote-shells.ts); the screen's answers to queries too: the node's own screen answers those. */
  write(): void {}
  resize(cols: number, rows: number): void {
    this.options
      .link()
      .call('shell_io', { shellId: this.id, resize: { cols, rows }, maxBytes: 1 }, this.options.nodeAs)
      .catch(() => {});
  }
  onData(listener: (bytes: Buffer) => void): () => void {
    this.dataListeners.add(listener);
    return () => this.dataListeners.delete(listener);
  }
  onExit(listener: (exit: TerminalExit) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }
  destroy(): void {}
  pause(): void {
    this.viewersHeld = true;
  }
  resume(): void {
    this.viewersHeld = false;
    this.flush();
  }

  /** An agent read up to `offset` by cursor: while it keeps reading, the stream waits for it rather than overrun it. */
  readTo(offset: number): void {
    this.reader = { cursor: offset, at: Date.now() };
    this.checkReader();
  }

  /**
   * `view` (the node's, as last listed) with what is read here now: the room's watch's condition of the agent in
   * it (stalled, limited), and with `agentStatus` an agent's status (its client's rules, on the output so far).
   */
  shown(view: ShellView, agentStatus = false): ShellView {
    const { condition: _there, ...rest } = view;
    const condition = this.session.condition;
    const status = agentStatus && view.agent && this.session.alive ? { status: this.session.status.status } : {};
    return { ...rest, ...status, ...(condition ? { condition } : {}) };
  }

  /** The stream runs (started again from the last offset received when it dropped); throws when the host cannot be reached. */
  async follow(): Promise<void> {
    if (this.live || this.ended || this.disposed) return;
    this.starting ??= this.start().finally(() => (this.starting = null));
    return this.starting;
  }

  private async start(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const listener: StreamListener = {
      data: (offset, bytes, gap) => this.received(offset, bytes, gap),
      exit: (exit, end) => {
        this.pendingExit = { exit, end };
        this.maybeExit();
      },
      dropped: () => {
        this.live = false;
        this.retry();
      },
    };
    // a new stream starts with nothing unacknowledged on the node's side
    this.owed = 0;
    await this.options.link().stream(this.id, this.session.ring.end, listener, this.options.nodeAs);
    this.live = true;
    this.retryMs = RETRY_FIRST_MS;
  }

  /** Follows from now on, in the background (retried while the host cannot be reached): a copy adopted after a restart. */
  followSoon(): void {
    this.follow().catch((error: unknown) => {
      if (error instanceof RoomError && error.code === 'NOT_FOUND') this.options.onGone();
      else this.retry();
    });
  }

  private retry(): void {
    if (this.disposed || this.ended || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.follow().catch((error: unknown) => {
        if (error instanceof RoomError && error.code === 'NOT_FOUND') return this.options.onGone();
        this.retryMs = Math.min(this.retryMs * 2, RETRY_MOST_MS);
        this.retry();
      });
    }, this.retryMs);
    this.retryTimer.unref();
  }

  private received(offset: number, chunk: Buffer, gap: boolean): void {
    if (this.disposed) return;
    const end = this.session.ring.end;
    let bytes = chunk;
    if (offset > end && end === 0 && !this.receivedAny) {
      // a copy made after the room restarted: it starts where the node's scrollback does, as a new reader would
      this.session.ring.skip(offset);
    } else if (offset > end) {
      // the node's scrollback no longer held it: said, never silently
      this.session.ring.skip(offset);
      this.lost += offset - end;
      this.options.onGap(offset - end);
    } else if (offset < end) bytes = chunk.subarray(Math.min(chunk.length, end - offset));
    void gap;
    this.receivedAny = true;
    if (bytes.length > 0) for (const listener of [...this.dataListeners]) listener(bytes);
    this.checkReader();
    // acknowledged a quarter of the window at a time (each acknowledgement wakes ssh, sshd, the relay and the
    // node), and what is left once the stream pauses
    this.owed += chunk.length;
    if (this.owed >= ACK_EVERY) this.flush();
    else this.ackTimer ??= setTimeout(() => {
      this.ackTimer = undefined;
      this.flush();
    }, 1);
    this.maybeExit();
  }

  private flush(): void {
    clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    if (this.held || this.owed === 0 || this.disposed) return;
    const bytes = this.owed;
    this.owed = 0;
    try {
      this.options.link().notify('shell_stream_ack', { shellId: this.id, bytes });
    } catch {
      // the room is closing its links
    }
  }

  private checkReader(): void {
    const r = this.reader;
    const ring = this.session.ring;
    const now = Date.now();
    const hold = r !== null && now - r.at < this.options.stallMs && ring.end - r.cursor >= ring.capacity - NODE_STREAM_HIGH && !this.ended;
    if (hold !== this.readerHeld) {
      this.readerHeld = hold;
      this.flush();
    }
    if (hold && r && !this.readerTimer) {
      this.readerTimer = setTimeout(() => {
        this.readerTimer = undefined;
        this.checkReader();
      }, this.options.stallMs - (now - r.at) + 1);
      this.readerTimer.unref();
    }
  }

  private maybeExit(): void {
    const pending = this.pendingExit;
    if (!pending || this.ended || this.session.ring.end < pending.end) return;
    this.ended = true;
    this.readerHeld = false;
    this.options.link().unstream(this.id);
    for (const listener of [...this.exitListeners]) listener(pending.exit);
  }

  /** The shell was closed: the stream stops and nothing is retried. */
  dispose(): void {
    this.disposed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.readerTimer);
    clearTimeout(this.ackTimer);
    try {
      this.options.link().unstream(this.id);
    } catch {
      // the room closed its links
    }
    this.session.screen.dispose();
  }
}
