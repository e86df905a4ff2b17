/**
 * Feeds a terminal the shell's frames in as few writes as it can take. xterm.js parses its queue for 12 ms
 * and then yields to the screen, so in a flood every write of one 64 KiB frame cost a redraw of the whole
 * screen: the page spent more time drawing rows than parsing them (the ui benchmark's profile). Here at most
 * one write is in xterm at a time; what arrives meanwhile is joined and written at once when it is parsed, so a
 * flood is parsed in large batches with a frame drawn between them, and a lone echo is still written at once.
 * Every frame is acknowledged after xterm parsed it (nothing is dropped: the engine paces by these acks).
 */

/** The part of xterm's Terminal this needs. */
export interface WritableTerminal {
  write(data: Uint8Array | string, callback?: () => void): void;
}

/** Largest single write: the page draws a frame at least once per this much parsed text (~tens of ms). */
export const MAX_WRITE_BYTES = 512 * 1024;

export class TerminalFeed {
  private queued: Uint8Array[] = [];
  private acks: Array<() => void> = [];
  private writing = false;
  private stopped = false;

  constructor(private readonly term: WritableTerminal) {}

  /** Text of our own (a mark, an exit line): written in order with the shell's bytes. */
  note(text: string): void {
    this.push(new TextEncoder().encode(text), () => undefined);
  }

  push(bytes: Uint8Array, ack: () => void): void {
    if (this.stopped) return;
    this.queued.push(bytes);
    this.acks.push(ack);
    if (!this.writing) this.writeNext();
  }

  /** The terminal is going away: nothing more is written (frames not parsed are never acknowledged). */
  stop(): void {
    this.stopped = true;
    this.queued = [];
    this.acks = [];
  }

  private writeNext(): void {
    if (this.stopped || this.queued.length === 0) {
      this.writing = false;
      return;
    }
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
    this.term.write(join(parts, bytes), () => {
      for (const ack of acks) ack();
      this.writeNext();
    });
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
