import type { ServerMessage } from '../common/ui-protocol';
import { FRAME_HEADROOM, frameData } from '../common/ui-shell-frame';
import type { ShellAttachment, ShellExit, ShellViewer } from '../engine/index';

/**
 * Largest raw slice one `shell.data` frame carries (a flood is cut into frames, never one huge message). At
 * 64 KiB a 10 MB flood was ~160 messages, each a task of its own for the page (parse, decode, a chance to draw).
 */
export const MAX_FRAME_BYTES = 256 * 1024;
/** Room for data a new frame starts with (a keystroke's echo does not need a flood's 256 KiB); it grows as needed. */
const FIRST_FRAME_BYTES = 16 * 1024;
/**
 * Full-size frame buffers a stream keeps once the transport has written them, for the next frames. A fresh
 * 257 KiB buffer per frame made V8 count a flood's bytes as external memory towards its old-generation limit: in
 * a room with a few dozen MB of heap it marked the whole heap every ~100 ms of a flood (dozens of full
 * collections per 256 MiB). Writes to a local socket complete within a turn or two, so a
 * few suffice; memory kept per watched shell is at most this many × 257 KiB, only until the output has been
 * quiet for SPARE_IDLE_MS, and none after `stop`.
 */
const SPARE_FRAMES = 4;
/** Spare buffers are let go once no frame was sent for this long (a shell watched but quiet holds none). */
const SPARE_IDLE_MS = 2_000;

/**
 * One attached shell of one UI connection: output the engine hands over (already paced by acknowledgements,
 * so never more than the high watermark unacknowledged) is batched for `frameMs` and sent as frames of raw bytes.
 * The exit is reported only after the viewer was sent every byte before it.
 */
export class ShellStream implements ShellViewer {
  attachment: ShellAttachment | undefined;
  /** The engine hands over views of the ring: each is copied at once into the frame being gathered. */
  readonly borrows = true;
  /** The frame being gathered (its data at FRAME_HEADROOM, so it is sent without another copy); null when none. */
  private frame: Buffer | null = null;
  private pendingStart = 0;
  private pendingBytes = 0;
  private pendingTruncated = false;
  /** Offset just after the last byte sent (or queued); starts at the attach cursor. */
  private sentEnd: number;
  private timer: NodeJS.Timeout | undefined;
  /** Full-size frame buffers written and handed back by the transport (see SPARE_FRAMES). */
  private readonly spare: Buffer[] = [];
  /** When the last frame went, and the timer that lets the spares go once that is SPARE_IDLE_MS ago. */
  private lastSentAt = 0;
  private spareTimer: NodeJS.Timeout | undefined;
  private exit: ShellExit | null = null;
  private done = false;
  maxPendingBytes = 0;

  constructor(
    readonly shellId: string,
    /** `sent`, when the transport calls it, says the message's bytes are no longer held (the buffer is reused). */
    private readonly send: (message: ServerMessage, sent?: () => void) => void,
    private readonly frameMs: number,
    /** The shell's output end now (every byte it wrote so far). */
    private readonly outputEnd: () => number,
    private readonly onDone: () => void,
    from: number,
  ) {
    this.sentEnd = from;
  }

  get pending(): number {
    return this.pendingBytes;
  }

  onData(bytes: Buffer, offset: number, truncated: boolean): void {
    if (this.done) return;
    if (this.pendingBytes > 0 && (truncated || offset !== this.pendingStart + this.pendingBytes)) this.flush();
    for (let at = 0; at < bytes.length; ) {
      if (this.pendingBytes === 0) {
        this.pendingStart = offset + at;
        this.pendingTruncated = truncated && at === 0;
      }
      const take = Math.min(bytes.length - at, MAX_FRAME_BYTES - this.pendingBytes);
      this.reserve(take).set(bytes.subarray(at, at + take), FRAME_HEADROOM + this.pendingBytes);
      this.pendingBytes += take;
      at += take;
      this.maxPendingBytes = Math.max(this.maxPendingBytes, this.pendingBytes);
      // a full frame goes at once (a flood resumed by an ack is already here: waiting would only idle the page)
      if (this.pendingBytes >= MAX_FRAME_BYTES) this.flush();
    }
    this.sentEnd = offset + bytes.length;
    if (this.pendingBytes > 0) this.timer ??= setTimeout(() => this.flush(), this.frameMs);
  }

  /** Another view took the shell over (or its owner resized it): this view shows the PTY at its size now. */
  onDriving(driving: boolean): void {
    if (!this.done) this.send({ t: 'shell.driving', shellId: this.shellId, driving });
  }

  onExit(exit: ShellExit): void {
    this.exit = exit;
    this.finishIfDrained();
  }

  /** Called when attaching to a shell that had already ended. */
  exitedBefore(exit: ShellExit): void {
    this.onExit(exit);
  }

  /** The frame, with room for `bytes` more (a new buffer, the pending bytes moved over, when it is too small). */
  private reserve(bytes: number): Buffer {
    const need = this.pendingBytes + bytes;
    if (this.frame && this.frame.length - FRAME_HEADROOM >= need) return this.frame;
    // uninitialised memory: only the header and the data written here are ever sent
    const grown = this.spare.pop() ?? Buffer.allocUnsafe(FRAME_HEADROOM + (need <= FIRST_FRAME_BYTES ? FIRST_FRAME_BYTES : MAX_FRAME_BYTES));
    this.frame?.copy(grown, FRAME_HEADROOM, FRAME_HEADROOM, FRAME_HEADROOM + this.pendingBytes);
    this.frame = grown;
    return grown;
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pendingBytes > 0 && this.frame) {
      const buffer = this.frame;
      const frame: ServerMessage = { t: 'shell.data', shellId: this.shellId, cursor: this.pendingStart, data: frameData(buffer, this.pendingBytes) };
      if (this.pendingTruncated) frame.truncated = true;
      // the transport may still hold the buffer (a socket write in progress): the next frame gets another one,
      // and this one is kept for later frames once the transport says it was written
      this.frame = null;
      this.pendingBytes = 0;
      this.pendingTruncated = false;
      this.lastSentAt = Date.now();
      this.send(frame, () => this.recycle(buffer));
    }
    this.finishIfDrained();
  }

  /** A frame's buffer the transport no longer holds: kept for a later frame if it is full-size and there is room. */
  private recycle(buffer: Buffer): void {
    if (this.done || buffer.length !== FRAME_HEADROOM + MAX_FRAME_BYTES || this.spare.length >= SPARE_FRAMES) return;
    // a transport that said so twice must not have one buffer carry two frames at once
    if (buffer === this.frame || this.spare.includes(buffer)) return;
    this.spare.push(buffer);
    if (!this.spareTimer) this.dropSparesIn(SPARE_IDLE_MS);
  }

  /** Lets the spares go once no frame was sent for SPARE_IDLE_MS (checked `ms` from now). */
  private dropSparesIn(ms: number): void {
    this.spareTimer = setTimeout(() => this.dropIdleSpares(), ms);
    this.spareTimer.unref();
  }

  private dropIdleSpares(): void {
    this.spareTimer = undefined;
    const quietFor = Date.now() - this.lastSentAt;
    if (quietFor >= SPARE_IDLE_MS) this.spare.length = 0;
    else this.dropSparesIn(SPARE_IDLE_MS - quietFor);
  }

  private finishIfDrained(): void {
    if (this.done || !this.exit || this.pendingBytes > 0) return;
    if (this.sentEnd < this.outputEnd()) return; // still paced by acknowledgements: the rest comes first
    this.done = true;
    this.send({ t: 'shell.exit', shellId: this.shellId, exitCode: this.exit.exitCode, signal: this.exit.signal });
    this.onDone();
  }

  /** Stops the stream (detach or connection closed): nothing more is sent. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.done = true;
    this.frame = null;
    this.spare.length = 0;
    clearTimeout(this.spareTimer);
    this.spareTimer = undefined;
    this.pendingBytes = 0;
    this.attachment?.detach();
    this.attachment = undefined;
  }
}
