import { StringDecoder } from 'node:string_decoder';

/**
 * A shell's scrollback: the newest output, addressed by absolute offsets (bytes since the shell started), kept
 * up to a cap in lines (as a terminal's history is) and in bytes (a line can be any length). Memory grows with the
 * output in CHUNK-sized pieces (the first one itself growing from a few hundred bytes), so a shell at its prompt
 * holds its prompt, not the cap; chunks the cap has passed are let go (the newest one reused). A reader whose
 * cursor fell out is told (`truncated`) and resumes at the oldest byte still held. Reads start and end on UTF-8 character boundaries, so decoding a read never yields a replacement
 * character for a character split across PTY chunks, and the next cursor is always a boundary too.
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

/** The unit the ring grows and shrinks by: a shell that printed a prompt holds one. */
const CHUNK = 16 * 1024;
const NEWLINE = 0x0a;
/** The smallest buffer a shell's first chunk starts with (bash's own prompt and its marks, ~100 bytes, fit); it doubles as output comes, up to CHUNK. */
const MIN_PIECE = 128;

/** The buffer for a chunk that must hold `bytes` now: the next power of two from MIN_PIECE, at most CHUNK. */
function sizeFor(bytes: number): number {
  let size = MIN_PIECE;
  while (size < bytes && size < CHUNK) size *= 2;
  return size;
}

function newlinesIn(bytes: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(NEWLINE); i >= 0; i = bytes.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

export class ScrollbackRing {
  /** chunks[i] holds offsets [(first + i) * CHUNK, (first + i + 1) * CHUNK). */
  private chunks: Buffer[] = [];
  private first = 0;
  /** A chunk let go, kept for the next one needed (a flood would otherwise allocate one per CHUNK). */
  private spare: Buffer | undefined;
  /** Total bytes ever appended = the offset just after the newest byte. */
  private total = 0;
  private oldest = 0;
  /** Newlines held (in [oldest, total)). */
  private lines = 0;

  /**
   * @param capacity the most bytes held
   * @param maxLines the most lines held (the newest `maxLines` newlines and the line being written after them)
   * @param keep an offset the line cap must not drop bytes from (a live viewer's unread output; the byte cap
   *   still holds: the viewers hold the PTY before it)
   */
  constructor(
    readonly capacity: number,
    readonly maxLines = Infinity,
    private readonly keep: () => number = () => Infinity,
  ) {}

  /** Offset just after the newest byte. */
  get end(): number {
    return this.total;
  }

  /** Offset of the oldest byte still held. */
  get start(): number {
    return this.oldest;
  }

  /** Bytes of memory the ring holds now. */
  get allocated(): number {
    return this.chunks.reduce((a, c) => a + c.length, this.spare?.length ?? 0);
  }

  append(chunk: Buffer): void {
    let data = chunk;
    if (data.length > this.capacity) {
      // only its last `capacity` bytes can be kept: everything held goes, and the rest of it is skipped
      this.chunks = [];
      this.total += data.length - this.capacity;
      this.oldest = this.total;
      this.lines = 0;
      data = data.subarray(data.length - this.capacity);
    }
    if (this.maxLines !== Infinity) this.lines += newlinesIn(data);
    this.write(data);
    this.trim();
  }

  /**
   * Output up to `offset` is known to be lost (a copy of another machine's shell whose own scrollback moved on
   * before it was sent here): the ring lets go of what it holds and goes on at `offset`, so offsets stay the
   * other side's and a reader from before it is told `truncated`.
   */
  skip(offset: number): void {
    if (offset <= this.total) return;
    this.chunks = [];
    this.total = offset;
    this.oldest = offset;
    this.lines = 0;
  }

  /** Reads up to `maxBytes` from `cursor`, aligned to UTF-8 character boundaries. */
  read(cursor: number, maxBytes: number): RingRead {
    const range = this.range(cursor, maxBytes);
    return { ...range, bytes: this.copy(range.start, range.next) };
  }

  /**
   * The same range as `read`, but `bytes` is a view of the ring itself when the range lies in one chunk (a copy
   * when it does not): no allocation or copy per read. The view is valid only until the next append, which may
   * reuse it: the caller copies what it keeps before then.
   */
  readView(cursor: number, maxBytes: number): RingRead {
    const range = this.range(cursor, maxBytes);
    const index = Math.floor(range.start / CHUNK);
    const pos = range.start % CHUNK;
    const length = range.next - range.start;
    const chunk = this.chunks[index - this.first];
    const bytes = chunk && pos + length <= CHUNK ? chunk.subarray(pos, pos + length) : this.copy(range.start, range.next);
    return { ...range, bytes };
  }

  /**
   * The same range as `read`, decoded as UTF-8 straight from the ring's chunks: a 1 MiB page is one string, not a
   * copy of the bytes and then a string (a character split between two chunks is decoded whole).
   */
  readText(cursor: number, maxBytes: number): RingTextRead {
    const range = this.range(cursor, maxBytes);
    const index = Math.floor(range.start / CHUNK);
    if (index === Math.floor(Math.max(range.start, range.next - 1) / CHUNK)) {
      const chunk = this.chunks[index - this.first];
      const pos = range.start % CHUNK;
      return { ...range, text: chunk ? chunk.toString('utf8', pos, pos + range.next - range.start) : '' };
    }
    const decoder = new StringDecoder('utf8');
    let text = '';
    this.forEachPiece(range.start, range.next, (piece) => (text += decoder.write(piece)));
    return { ...range, text: text + decoder.end() };
  }

  private write(data: Buffer): void {
    if (this.chunks.length === 0) this.first = Math.floor(this.total / CHUNK);
    let from = 0;
    while (from < data.length) {
      const index = Math.floor(this.total / CHUNK) - this.first;
      const pos = this.total % CHUNK;
      const n = Math.min(CHUNK - pos, data.length - from);
      let chunk = this.chunks[index];
      if (!chunk) {
        // every byte is written before it is read: no need to zero it. The shell's first chunk starts small, so a
        // shell at its prompt holds its prompt, not CHUNK; once it has printed more, its chunks are made whole
        // (growing each one in steps would leave the steps behind in the allocator: +10 % resident when full)
        chunk = this.spare ?? Buffer.allocUnsafeSlow(this.total < CHUNK ? sizeFor(pos + n) : CHUNK);
        this.spare = undefined;
        this.chunks.push(chunk);
      } else if (chunk.length < pos + n) {
        // the newest chunk outgrew its buffer: a bigger one (the old one may still back a view handed out)
        const bigger = Buffer.allocUnsafeSlow(sizeFor(pos + n));
        chunk.copy(bigger, 0, 0, pos);
        chunk = this.chunks[index] = bigger;
      }
      data.copy(chunk, pos, from, from + n);
      from += n;
      this.total += n;
    }
  }

  /**
   * The offset `keep` gave moved on (a live viewer read or acknowledged its output, left, or stopped holding):
   * the lines past the line cap it held are let go now, not at the next append (a shell that went quiet after a
   * flood would otherwise keep them all).
   */
  kept(): void {
    if (this.lines > this.maxLines) this.trim();
  }

  /** Applies both caps, then lets go of the chunks wholly before the oldest byte held. */
  private trim(): void {
    if (this.total - this.oldest > this.capacity) {
      const to = this.total - this.capacity;
      if (this.maxLines !== Infinity) this.forEachPiece(this.oldest, to, (piece) => (this.lines -= newlinesIn(piece)));
      this.oldest = to;
    }
    if (this.lines > this.maxLines) {
      const keep = this.keep();
      while (this.lines > this.maxLines) {
        const after = this.newlineAfter(this.oldest) + 1;
        if (after > keep) break;
        this.oldest = after;
        this.lines--;
      }
    }
    const unused = Math.min(this.chunks.length, Math.floor(this.oldest / CHUNK) - this.first);
    if (unused > 0) {
      // only a whole chunk is kept for reuse (the chunks let go were filled, so they are whole)
      const last = this.chunks[unused - 1];
      if (last && last.length === CHUNK) this.spare = last;
      this.chunks.splice(0, unused);
      this.first += unused;
    }
  }

  /** The offset of the first newline at or after `from` (there is one: `lines` counts it). */
  private newlineAfter(from: number): number {
    for (let at = from; at < this.total; ) {
      const index = Math.floor(at / CHUNK);
      const chunk = this.chunks[index - this.first] as Buffer;
      const pos = at % CHUNK;
      const end = Math.min(CHUNK, this.total - index * CHUNK);
      const found = chunk.subarray(0, end).indexOf(NEWLINE, pos);
      if (found >= 0) return index * CHUNK + found;
      at = (index + 1) * CHUNK;
    }
    return this.total;
  }

  /** Calls `fn` with the ring's bytes in [from, to), one view per chunk. */
  private forEachPiece(from: number, to: number, fn: (piece: Buffer) => void): void {
    for (let at = from; at < to; ) {
      const index = Math.floor(at / CHUNK);
      const chunk = this.chunks[index - this.first] as Buffer;
      const pos = at % CHUNK;
      const n = Math.min(CHUNK - pos, to - at);
      fn(chunk.subarray(pos, pos + n));
      at += n;
    }
  }

  private range(cursor: number, maxBytes: number): Omit<RingRead, 'bytes'> {
    const requested = Math.max(0, Math.min(cursor, this.total));
    let from = Math.max(requested, this.oldest);
    const truncated = requested < this.oldest;
    // never start inside a character (only possible where a cap cut one in half)
    while (from < this.total && isContinuation(this.byteAt(from))) from++;
    let to = Math.min(this.total, from + Math.max(0, maxBytes));
    to = this.backOffIncomplete(from, to);
    return { start: from, next: to, truncated, more: to < this.total };
  }

  private byteAt(offset: number): number {
    return (this.chunks[Math.floor(offset / CHUNK) - this.first] as Buffer)[offset % CHUNK] as number;
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
    // every byte is written below: no need to zero it first
    const out = Buffer.allocUnsafe(to - from);
    let written = 0;
    this.forEachPiece(from, to, (piece) => (written += piece.copy(out, written)));
    return out;
  }
}
