/**
 * Feeds a terminal the shell's frames in as few writes as it can take. xterm.js parses one write without
 * yielding and then the page draws a frame, every row of it with the DOM renderer since every row scrolled
 * (the ui benchmark: ~15–19 ms of the page's CPU per frame, one frame per write of the ~100–200 KiB that had
 * arrived, a third of the page's time). So at most one write is in xterm at a time, what arrives meanwhile is
 * joined, and while a flood is on (the last write was large, and so is the frame that just came: the room had
 * more than one frame's worth) bytes are held back until a full write's worth has arrived or FLOOD_HOLD_MS has
 * passed: a flood is parsed in few large writes, one frame drawn after each. A small frame (an echo, a prompt,
 * a flood's last bytes, a trickle of log lines, a full-screen redraw) is written at once with what was held.
 * Every frame is acknowledged after xterm parsed it (nothing is dropped: the engine paces by these acks, and
 * its window, viewerHighWatermark, holds two full writes so it keeps sending while one is held).
 */

/** The part of xterm's Terminal this needs. */
export interface WritableTerminal {
  write(data: Uint8Array | string, callback?: () => void): void;
}

/** Largest single write (whole frames only, so one frame may exceed it): ~40–60 ms of parsing on a slow machine. */
export const MAX_WRITE_BYTES = 512 * 1024;
/** A write (and a frame) at least this large means a flood is on: what follows is held to grow toward MAX_WRITE_BYTES. */
export const FLOOD_BYTES = 64 * 1024;
/**
 * The longest bytes wait in a flood for more to join them (a few frames: invisible in a flood; at 16 ms half
 * the writes still went out short). A flood ends when a write under FLOOD_BYTES was parsed or nothing came
 * for this long, so typing after a flood is echoed at once again.
 */
export const FLOOD_HOLD_MS = 40;

export class TerminalFeed {
  private queued: Uint8Array[] = [];
  private queuedBytes = 0;
  private acks: Array<() => void> = [];
  private writing = false;
  private flooding = false;
  private moreComing = false;
  private hold: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(private readonly term: WritableTerminal) {}

  /** Text of our own (a mark, an exit line): written in order with the shell's bytes. */
  note(text: string): void {
    this.push(new TextEncoder().encode(text), () => undefined);
  }

  push(bytes: Uint8Array, ack: () => void): void {
    if (this.stopped) return;
    this.queued.push(bytes);
    this.queuedBytes += bytes.length;
    // a large frame says the room had more than it could send at once; a small one, that the shell paused
    this.moreComing = bytes.length >= FLOOD_BYTES;
    this.acks.push(ack);
    if (!this.writing) this.writeWhenDue();
  }

  /** The terminal is going away: nothing more is written (frames not parsed are never acknowledged). */
  stop(): void {
    this.stopped = true;
    this.clearHold();
    this.queued = [];
    this.queuedBytes = 0;
    this.acks = [];
  }

  /** Nothing in xterm: write now, unless a flood is on, more is coming, and less than a full write has arrived (then hold). */
  private writeWhenDue(): void {
    if (this.stopped) return;
    const hold = this.flooding && this.moreComing && this.queuedBytes < MAX_WRITE_BYTES;
    if (this.queuedBytes > 0 && !hold) {
      this.clearHold();
      this.writeNext();
      return;
    }
    if (!this.flooding) return; // nothing to write and no flood to wait out
    this.hold ??= setTimeout(() => {
      this.hold = null;
      if (this.writing || this.stopped) return;
      if (this.queuedBytes > 0) this.writeNext();
      else this.flooding = false; // nothing came for FLOOD_HOLD_MS: the flood is over
    }, FLOOD_HOLD_MS);
  }

  private writeNext(): void {
    this.writing = true;
    let count = 0;
    let bytes = 0;
    // whole frames only, so each ack covers exactly what was parsed; at least one even if it is large
    while (count < this.queued.length && (count === 0 || bytes + (this.queued[count] as Uint8Array).length <= MAX_WRITE_BYTES)) {
      bytes += (this.queued[count] as Uint8Array).length;
      count++;
    }
    const parts = this.queued.splice(0, count);
    const acks = this.acks.splice(0, count);
    this.queuedBytes -= bytes;
    this.term.write(join(parts, bytes), () => {
      for (const ack of acks) ack();
      this.writing = false;
      this.flooding = bytes >= FLOOD_BYTES;
      this.writeWhenDue();
    });
  }

  private clearHold(): void {
    if (this.hold === null) return;
    clearTimeout(this.hold);
    this.hold = null;
  }
}

function join(parts: Uint8Array[], bytes: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const all = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}
