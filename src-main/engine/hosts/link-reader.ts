import { decodeOutputFrame, FRAME_HEAD, FRAME_MARK, frameLength, type OutputFrame } from './stream-frames';

/** The longest line taken from a node (a large answer: a shell page, a graph); longer ends the connection. */
export const MAX_LINK_LINE = 64 * 1024 * 1024;

/**
 * Reads what a room node sends (node-link.ts): JSON lines, and once frames are allowed (after the node's hello)
 * binary frames of shell output between them (common/node-stream.ts), told apart by their first byte. Bytes are
 * kept as the chunks they came in and copied only to join a line or a frame split across chunks. Bounded: a
 * frame longer than the protocol allows, of an unknown kind, or a line past MAX_LINK_LINE calls `fail` once with
 * what was wrong, and nothing after it is read.
 */
export class LinkReader {
  private chunks: Buffer[] = [];
  private length = 0;
  /** Chunks at the front already searched for a newline (none there), and their bytes. */
  private scannedChunks = 0;
  private scanned = 0;
  private failed = false;
  /** Binary frames may come (the hello said the node sends them). */
  framesAllowed = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onFrame: (frame: OutputFrame) => void,
    private readonly fail: (why: string) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.failed) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
    while (this.length > 0 && !this.failed) {
      if (this.framesAllowed && this.scanned === 0 && (this.chunks[0] as Buffer)[0] === FRAME_MARK) {
        if (this.length < FRAME_HEAD) return;
        const head = this.peek(FRAME_HEAD);
        const length = frameLength(head);
        if (typeof length === 'string') return this.stop(length);
        if (this.length < FRAME_HEAD + length) return;
        this.take(FRAME_HEAD);
        const frame = decodeOutputFrame(head[1] as number, this.take(length));
        if (typeof frame === 'string') return this.stop(frame);
        this.onFrame(frame);
        continue;
      }
      const at = this.newline();
      if (at === -1) {
        if (this.length > MAX_LINK_LINE) this.stop(`a line longer than ${MAX_LINK_LINE} bytes`);
        return;
      }
      const line = this.take(at).toString('utf8');
      this.take(1);
      this.onLine(line);
    }
  }

  private stop(why: string): void {
    this.failed = true;
    this.chunks = [];
    this.length = 0;
    this.fail(why);
  }

  /** The offset of the first newline, searching on from what was searched before; -1: none yet. */
  private newline(): number {
    for (; this.scannedChunks < this.chunks.length; this.scannedChunks++) {
      const chunk = this.chunks[this.scannedChunks] as Buffer;
      const i = chunk.indexOf(10);
      if (i !== -1) return this.scanned + i;
      this.scanned += chunk.length;
    }
    return -1;
  }

  /** The first `n` bytes, left in place. */
  private peek(n: number): Buffer {
    const first = this.chunks[0] as Buffer;
    if (first.length >= n) return first.subarray(0, n);
    const out = Buffer.alloc(n);
    let filled = 0;
    for (const chunk of this.chunks) {
      if (filled === n) break;
      filled += chunk.copy(out, filled, 0, Math.min(chunk.length, n - filled));
    }
    return out;
  }

  /** Takes the first `n` bytes (a view of the chunk when they are all in the first one). */
  private take(n: number): Buffer {
    this.length -= n;
    this.scanned = 0;
    this.scannedChunks = 0;
    const first = this.chunks[0] as Buffer;
    if (first.length > n) {
      this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    if (first.length === n) {
      this.chunks.shift();
      return first;
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    let used = 0;
    while (filled < n) {
      const chunk = this.chunks[used] as Buffer;
      const part = Math.min(chunk.length, n - filled);
      chunk.copy(out, filled, 0, part);
      filled += part;
      if (part === chunk.length) used++;
      else this.chunks[used] = chunk.subarray(part);
    }
    this.chunks.splice(0, used);
    return out;
  }
}
