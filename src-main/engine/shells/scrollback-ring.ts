/**
 * A shell's scrollback: a fixed-size byte ring addressed by absolute offsets (bytes since the shell
 * started). Memory is the capacity whatever the volume; a reader whose cursor fell out of the ring is told
 * (`truncated`) and resumes at the oldest byte still held. Reads start and end on UTF-8 character
 * boundaries, so decoding a read never yields a replacement character for a character split across PTY
 * chunks, and the next cursor is always a boundary too.
 */
export interface RingRead {
  /** Offset of the first byte returned (≥ the requested cursor when the ring had already moved on). */
  start: number;
  /** Offset just after the last byte returned: the next cursor. */
  next: number;
  bytes: Buffer;
  /** The requested cursor was older than the oldest byte held: some output was lost to this reader. */
  truncated: boolean;
  /** More output is held after `next`. */
  more: boolean;
}

/** A read decoded as UTF-8 (`readText`): the range of `RingRead`, its text instead of its bytes. */
export type RingTextRead = Omit<RingRead, 'bytes'> & { text: string };

/** Is `b` a UTF-8 continuation byte (10xxxxxx)? */
const isContinuation = (b: number) => (b & 0xc0) === 0x80;

/** Length a UTF-8 sequence announces by its lead byte (1 for ASCII and for bytes that cannot lead). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

export class ScrollbackRing {
  private readonly buffer: Buffer;
  /** Total bytes ever appended = the offset just after the newest byte. */
  private total = 0;

  constructor(readonly capacity: number) {
    this.buffer = Buffer.alloc(capacity);
  }

  /** Offset just after the newest byte. */
  get end(): number {
    return this.total;
  }

  /** Offset of the oldest byte still held. */
  get start(): number {
    return Math.max(0, this.total - this.capacity);
  }

  append(chunk: Buffer): void {
    if (chunk.length >= this.capacity) {
      chunk.copy(this.buffer, 0, chunk.length - this.capacity);
      this.total += chunk.length;
      // the buffer now holds the last `capacity` bytes starting at position 0; realign the write position
      this.rotateTo(this.total % this.capacity);
      return;
    }
    const pos = this.total % this.capacity;
    const first = Math.min(chunk.length, this.capacity - pos);
    chunk.copy(this.buffer, pos, 0, first);
    if (first < chunk.length) chunk.copy(this.buffer, 0, first);
    this.total += chunk.length;
  }

  /** Reads up to `maxBytes` from `cursor`, aligned to UTF-8 character boundaries. */
  read(cursor: number, maxBytes: number): RingRead {
    const range = this.range(cursor, maxBytes);
    return { ...range, bytes: this.copy(range.start, range.next) };
  }

  /**
   * The same range as `read`, but `bytes` is a view of the ring itself when the range does not wrap around the
   * buffer's end (a copy when it does): no allocation or copy per read. The view is valid only until the next
   * append, which may overwrite it: the caller copies what it keeps before then.
   */
  readView(cursor: number, maxBytes: number): RingRead {
    const range = this.range(cursor, maxBytes);
    const pos = range.start % this.capacity;
    const length = range.next - range.start;
    const bytes = pos + length <= this.capacity ? this.buffer.subarray(pos, pos + length) : this.copy(range.start, range.next);
    return { ...range, bytes };
  }

  /**
   * The same range as `read`, decoded as UTF-8 straight from the ring: a 1 MiB page is one string, not a copy
   * of the bytes and then a string (only a range that wraps around the buffer's end is copied first).
   */
  readText(cursor: number, maxBytes: number): RingTextRead {
    const { bytes, ...range } = this.readView(cursor, maxBytes);
    return { ...range, text: bytes.toString('utf8') };
  }

  private range(cursor: number, maxBytes: number): Omit<RingRead, 'bytes'> {
    const requested = Math.max(0, Math.min(cursor, this.total));
    let from = Math.max(requested, this.start);
    const truncated = requested < this.start;
    // never start inside a character (only possible where the ring cut one in half)
    while (from < this.total && isContinuation(this.byteAt(from))) from++;
    let to = Math.min(this.total, from + Math.max(0, maxBytes));
    to = this.backOffIncomplete(from, to);
    return { start: from, next: to, truncated, more: to < this.total };
  }

  private byteAt(offset: number): number {
    return this.buffer[offset % this.capacity] as number;
  }

  /** Moves `to` back so the range does not end inside a character that is not complete in it. */
  private backOffIncomplete(from: number, to: number): number {
    for (let back = 1; back <= 3 && to - back >= from; back++) {
      const b = this.byteAt(to - back);
      if (isContinuation(b)) continue;
      const need = sequenceLength(b);
      // a lead byte: keep the character only if all its bytes are in range
      return need > back ? to - back : to;
    }
    return to;
  }

  private copy(from: number, to: number): Buffer {
    const length = to - from;
    // every byte is written below: no need to zero it first
    const out = Buffer.allocUnsafe(length);
    const pos = from % this.capacity;
    const first = Math.min(length, this.capacity - pos);
    this.buffer.copy(out, 0, pos, pos + first);
    if (first < length) this.buffer.copy(out, first, 0, length - first);
    return out;
  }

  private rotateTo(pos: number): void {
    if (pos === 0) return;
    const copy = Buffer.from(this.buffer);
    // bytes currently at [0, capacity) are offsets [total - capacity, total); place offset o at o % capacity
    for (let i = 0; i < this.capacity; i++) this.buffer[(pos + i) % this.capacity] = copy[i] as number;
  }
}
