import type { ScrollbackRing } from './scrollback-ring';

/** Someone watching the shell live (the app's terminal view): fed from the ring, paced by acknowledgements. */
export interface ShellViewer {
  /** Receives bytes from `offset`; `truncated` when output between the viewer's cursor and `offset` was lost. */
  onData(bytes: Buffer, offset: number, truncated: boolean): void;
  onExit?(exit: { exitCode: number | null; signal: string | null }): void;
  /** The PTY stopped following this view's size (someone else took the shell over, or its owner resized it). */
  onDriving?(driving: boolean): void;
  /**
   * The viewer copies what it keeps during `onData` (the UI door gathers frames): it is then handed views of
   * the ring, valid only during the call, instead of a copy of each slice.
   */
  readonly borrows?: boolean;
}

export interface ViewerState {
  viewer: ShellViewer;
  cursor: number;
  unacked: number;
  paused: boolean;
  high: number;
  low: number;
  lastAckAt: number;
  /** Silent past the stall time: no longer holds the PTY back. */
  stalled: boolean;
  /** It may ask for what it has not acknowledged again (a room node's stream after a drop): the PTY is held for that too. */
  resends: boolean;
}

/** What the viewers may do to the PTY: stop and go on reading it (absent: a terminal that cannot be held). */
export interface Holdable {
  pause?(): void;
  resume?(): void;
}

/**
 * A shell's live viewers, fed from its ring and paced by their acknowledgements, and the backpressure they put
 * on its PTY: while a viewer that keeps acknowledging is about to lose output it has not read yet (the ring
 * would overwrite it), the PTY is not read, so the program writing blocks, as in a real terminal. Memory stays
 * the ring. A viewer silent for `stallMs` stops holding: an agent's shell never waits on a frozen window.
 */
export class ShellViewers {
  /** Made with the first viewer: most shells are never watched live. */
  private viewers: Set<ViewerState> | undefined;
  private held = false;
  private stallTimer: NodeJS.Timeout | undefined;
  /** How long a viewer that stopped acknowledging may still hold the PTY back. */
  stallMs = 2_000;
  /**
   * The hold margin when set (else a quarter of the ring, at most 256 KiB): what may still arrive after a hold,
   * e.g. a room's copy of a host's shell, whose node has up to NODE_STREAM_HIGH in flight (remote-mirror.ts).
   */
  margin: number | undefined;

  constructor(
    private readonly ring: ScrollbackRing,
    private readonly term: Holdable,
    private readonly alive: () => boolean,
  ) {}

  /** How far from the ring's capacity a viewer's backlog holds the PTY. */
  holdMargin(): number {
    return this.margin ?? Math.min(256 * 1024, Math.floor(this.ring.capacity / 4));
  }

  /**
   * The oldest output a viewer that keeps acknowledging has not acknowledged yet (Infinity: none): what was sent
   * but not acknowledged may not have arrived (a room node's stream whose link dropped sends it again).
   */
  oldestCursor(): number {
    let oldest = Infinity;
    if (this.viewers) for (const v of this.viewers) if (!v.stalled && v.cursor - v.unacked < oldest) oldest = v.cursor - v.unacked;
    return oldest;
  }

  attach(viewer: ShellViewer, from: number, high: number, low: number, resends = false): ViewerState {
    const state: ViewerState = { viewer, cursor: from, unacked: 0, paused: false, high, low, lastAckAt: Date.now(), stalled: false, resends };
    (this.viewers ??= new Set()).add(state);
    queueMicrotask(() => this.pump(state));
    return state;
  }

  detach(state: ViewerState): void {
    this.viewers?.delete(state);
    this.updateHold();
  }

  /** The viewer processed `bytes`: below the low watermark it is fed again. */
  ack(state: ViewerState, bytes: number): void {
    state.unacked = Math.max(0, state.unacked - bytes);
    state.lastAckAt = Date.now();
    state.stalled = false;
    if (state.paused && state.unacked <= state.low) {
      state.paused = false;
      this.pump(state);
    }
    this.updateHold();
  }

  /** The ring grew: feed whoever watches (runs for every PTY read, so nothing happens without a viewer). */
  grew(): void {
    if (!this.viewers?.size && !this.held) return;
    if (this.viewers) for (const v of this.viewers) this.pump(v);
    this.updateHold();
  }

  /** The program ended: nothing is held any more, and every viewer hears it after its last bytes. */
  exited(exit: { exitCode: number | null; signal: string | null }): void {
    this.release();
    if (this.viewers) for (const v of this.viewers) v.viewer.onExit?.(exit);
  }

  release(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    if (!this.held) return;
    this.held = false;
    this.term.resume?.();
  }

  private updateHold(): void {
    // a viewer's cursor moved on (or it left, or stalled): lines the ring's line cap kept for it may go
    this.ring.kept();
    if (!this.term.pause || !this.term.resume || !this.alive()) return;
    const limit = this.ring.capacity - this.holdMargin();
    let hold = false;
    if (this.viewers) for (const v of this.viewers) if (!v.stalled && this.ring.end - (v.resends ? v.cursor - v.unacked : v.cursor) >= limit) hold = true;
    if (hold && !this.held) {
      this.held = true;
      this.term.pause();
    } else if (!hold && this.held) {
      this.release();
    }
    if (this.held && !this.stallTimer) {
      this.stallTimer = setTimeout(() => {
        this.stallTimer = undefined;
        const now = Date.now();
        if (this.viewers) for (const v of this.viewers) if (now - v.lastAckAt >= this.stallMs) v.stalled = true;
        this.updateHold();
      }, this.stallMs);
      this.stallTimer.unref();
    }
  }

  private pump(state: ViewerState): void {
    while (!state.paused && this.viewers?.has(state)) {
      const room = state.high - state.unacked;
      if (room <= 0) {
        state.paused = true;
        return;
      }
      // a borrowing viewer copies each view at once: bigger slices, fewer calls
      const max = Math.min(room, state.viewer.borrows ? 256 * 1024 : 64 * 1024);
      const r = state.viewer.borrows ? this.ring.readView(state.cursor, max) : this.ring.read(state.cursor, max);
      if (r.next === r.start) return;
      state.cursor = r.next;
      state.unacked += r.bytes.length;
      state.viewer.onData(r.bytes, r.start, r.truncated);
    }
  }
}
