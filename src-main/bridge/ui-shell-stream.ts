import type { ServerMessage } from '../common/ui-protocol';
import type { ShellAttachment, ShellExit, ShellViewer } from '../engine/index';

/**
 * Largest raw slice one `shell.data` frame carries (a flood is cut into frames, never one huge message). At
 * 64 KiB a 10 MB flood was ~160 messages, each a task of its own for the page (parse, decode, a chance to draw).
 */
export const MAX_FRAME_BYTES = 256 * 1024;

/**
 * One attached shell of one UI connection: output the engine hands over (already paced by acknowledgements,
 * so never more than the high watermark unacknowledged) is batched for `frameMs` and sent as frames of raw bytes.
 * The exit is reported only after the viewer was sent every byte before it.
 */
export class ShellStream implements ShellViewer {
  attachment: ShellAttachment | undefined;
  private chunks: Buffer[] = [];
  private pendingStart = 0;
  private pendingBytes = 0;
  private pendingTruncated = false;
  /** Offset just after the last byte sent (or queued); starts at the attach cursor. */
  private sentEnd: number;
  private timer: NodeJS.Timeout | undefined;
  private exit: ShellExit | null = null;
  private done = false;
  maxPendingBytes = 0;

  constructor(
    readonly shellId: string,
    private readonly send: (message: ServerMessage) => void,
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
    if (this.pendingBytes === 0) {
      this.pendingStart = offset;
      this.pendingTruncated = truncated;
    }
    this.chunks.push(bytes);
    this.pendingBytes += bytes.length;
    this.sentEnd = offset + bytes.length;
    this.maxPendingBytes = Math.max(this.maxPendingBytes, this.pendingBytes);
    // a full frame goes at once (a flood resumed by an ack is already here: waiting would only idle the page)
    if (this.pendingBytes >= MAX_FRAME_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.frameMs);
  }

  onExit(exit: ShellExit): void {
    this.exit = exit;
    this.finishIfDrained();
  }

  /** Called when attaching to a shell that had already ended. */
  exitedBefore(exit: ShellExit): void {
    this.onExit(exit);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pendingBytes > 0) {
      const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
      let truncated = this.pendingTruncated;
      for (let at = 0; at < all.length; at += MAX_FRAME_BYTES) {
        const slice = all.subarray(at, at + MAX_FRAME_BYTES);
        const frame: ServerMessage = { t: 'shell.data', shellId: this.shellId, cursor: this.pendingStart + at, data: slice };
        if (truncated) frame.truncated = true;
        truncated = false;
        this.send(frame);
      }
      this.chunks = [];
      this.pendingBytes = 0;
      this.pendingTruncated = false;
    }
    this.finishIfDrained();
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
    this.chunks = [];
    this.pendingBytes = 0;
    this.attachment?.detach();
    this.attachment = undefined;
  }
}
