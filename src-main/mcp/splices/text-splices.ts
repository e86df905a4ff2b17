import { randomBytes } from 'node:crypto';

/**
 * Large strings in a tool's answer, written into the answer's bytes by us instead of serialised by the SDK.
 *
 * The SDK serialises every answer with `Response.json`: a 1 MiB shell page became the output string, the JSON
 * text block (`JSON.stringify` of the result), the message string around both, and its encoded bytes twice —
 * ≈ 7 MB of garbage per page, much of it alive when a young collection ran and so kept until a full one (the
 * `shell-stream` benchmark's agent RSS growth). A held string leaves the
 * answer as a short stand-in; once the SDK has made the answer's bytes, `splice` replaces each stand-in with
 * the string's UTF-8 bytes, escaped as many times as the JSON around the stand-in needs (once inside
 * `structuredContent`, twice inside the JSON text block), made straight from the string into bytes outside
 * the heap. The answer is byte for byte what the SDK would have sent.
 */

/**
 * The splices of the request a handler serves, where the door put them (`authInfo.extra.splices`: the 2026
 * door for every request, the 2025 sessions for each POST); none, and the answer goes through the SDK whole.
 */
export function splicesOf(ctx: { http?: { authInfo?: { extra?: Record<string, unknown> } } }): TextSplices | undefined {
  const splices = ctx.http?.authInfo?.extra?.splices;
  return splices instanceof TextSplices ? splices : undefined;
}

/** Whether `value` (a message about to be kept, say) carries a stand-in anywhere in its strings. */
export function carriesStandIn(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes(TAG);
  if (value === null || typeof value !== 'object' || depth > 16) return false;
  return Object.values(value).some((item) => carriesStandIn(item, depth + 1));
}

/** Strings shorter than this go through the SDK as they are: too small to matter. */
export const SPLICE_MIN_CHARS = 64 * 1024;

// The stand-in is MARK + TAG + answer + '.' + index + MARK: `answer` numbers the answers of this process, so a
// stand-in of one answer is never spliced in another. MARK is a control character, so JSON escapes it as `\u0001`
// (one level) or `\\u0001` (two levels, inside the text block): the bytes before the tag say the level. TAG is
// random per process, so no output, argument or name can contain a stand-in by chance or on purpose.
const MARK = '\u0001';
const TAG = `crsplice${randomBytes(12).toString('hex')}.`;
let answers = 0;
const BACKSLASH = 0x5c;
const MARK_AT = [Buffer.from('\\u0001'), Buffer.from('\\\\u0001')] as const;

/** The escape of each byte JSON escapes inside a string (`JSON.stringify`'s choices), at levels 1 and 2. */
const ESCAPES: [Buffer, Buffer][] = [];
/** 1 for each byte JSON escapes inside a string (a control byte, `"`, `\`), 0 for the rest. */
const SPECIAL = new Uint8Array(256);
/** What escaping byte b adds to the length, at levels 1 and 2 (0 when it is not escaped). */
const GROWTH: [Uint8Array, Uint8Array] = [new Uint8Array(256), new Uint8Array(256)];
const SHORT: Record<number, string> = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r', 0x22: '\\"', 0x5c: '\\\\' };
for (let byte = 0; byte < 0x80; byte++) {
  const once = SHORT[byte] ?? (byte < 0x20 ? `\\u${byte.toString(16).padStart(4, '0')}` : null);
  if (once === null) continue;
  const twice = once.replace(/[\\"]/g, (c) => `\\${c}`);
  ESCAPES[byte] = [Buffer.from(once), Buffer.from(twice)];
  SPECIAL[byte] = 1;
  GROWTH[0][byte] = once.length - 1;
  GROWTH[1][byte] = twice.length - 1;
}

/** Clean runs up to this long are copied in a loop, longer ones with Buffer.copy. */
const SHORT_RUN = 64;

/**
 * Whether none of four bytes (one little- or big-endian word) is one JSON escapes: no byte below 0x20, none
 * equal to 0x22 or 0x5c (the bit tricks for "a byte less than n" and "a zero byte", exact for whether one
 * exists; bytes of 0x80 and above, UTF-8's multi-byte sequences, never count).
 */
function cleanWord(w: number): boolean {
  const quote = w ^ 0x22222222;
  const backslash = w ^ 0x5c5c5c5c;
  const flags = ((w - 0x20202020) & ~w) | ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash);
  return (flags & 0x80808080) === 0;
}

/**
 * Reads `bytes` a word at a time where it is aligned: `next(from)` is the first byte at or after `from` that
 * JSON escapes (bytes.length when none is left). Text of a shell is long runs with no such byte, so whole words
 * are skipped four bytes per step.
 */
class SpecialScan {
  /** Where the aligned words start and end. */
  private readonly head: number;
  private readonly wordsEnd: number;
  private readonly words: Uint32Array;

  constructor(private readonly bytes: Uint8Array) {
    this.head = Math.min(bytes.length, (4 - (bytes.byteOffset & 3)) & 3);
    this.words = new Uint32Array(bytes.buffer, bytes.byteOffset + this.head, (bytes.length - this.head) >> 2);
    this.wordsEnd = this.head + this.words.length * 4;
  }

  next(from: number): number {
    const { bytes, head, wordsEnd, words } = this;
    let i = from;
    while (i < bytes.length) {
      if (i < head || i >= wordsEnd || ((i - head) & 3) !== 0) {
        // before the first word, after the last, or inside the word a byte was found in: byte by byte
        if (SPECIAL[bytes[i] as number]) return i;
        i++;
        continue;
      }
      let w = (i - head) >> 2;
      while (w < words.length && cleanWord(words[w] as number)) w++;
      i = head + w * 4;
      // the word at i (if any) holds such a byte: its bytes are looked at one by one above
      if (i < wordsEnd) for (const end = i + 4; i < end; i++) if (SPECIAL[bytes[i] as number]) return i;
    }
    return bytes.length;
  }
}

/** The length of `utf8` escaped as the inside of a JSON string once and twice. */
function escapedLengths(utf8: Uint8Array, scan: SpecialScan): [number, number] {
  const lengths: [number, number] = [utf8.length, utf8.length];
  for (let i = scan.next(0); i < utf8.length; i = scan.next(i + 1)) {
    lengths[0] += GROWTH[0][utf8[i] as number] as number;
    lengths[1] += GROWTH[1][utf8[i] as number] as number;
  }
  return lengths;
}

/**
 * Byte slabs the spliced strings are written into, kept between answers: made fresh for each page they were
 * ≈ 2 MiB outside the heap per 1 MiB page, freed only by the young collection after it (the room's
 * ArrayBuffers peaked at 34 MiB while an agent read a flood). A slab goes back once its answer is written.
 */
const SLAB_MIN = 1024 * 1024;
const IDLE_SLABS_MAX = 4;
const SLAB_KEPT_MAX = 8 * 1024 * 1024;
const idleSlabs: Buffer[] = [];

function takeSlab(size: number): Buffer {
  let best = -1;
  for (let i = 0; i < idleSlabs.length; i++) {
    const slab = idleSlabs[i] as Buffer;
    if (slab.length >= size && (best < 0 || slab.length < (idleSlabs[best] as Buffer).length)) best = i;
  }
  if (best >= 0) return idleSlabs.splice(best, 1)[0] as Buffer;
  return Buffer.allocUnsafeSlow(Math.max(size, SLAB_MIN));
}

function giveSlab(slab: Buffer): void {
  if (slab.length <= SLAB_KEPT_MAX && idleSlabs.length < IDLE_SLABS_MAX) idleSlabs.push(slab);
}

/** One answer's held strings, and the slabs their bytes were written into. */
export class TextSplices {
  private readonly held: string[] = [];
  /** TAG and this answer's number, made when it first holds a string. */
  private tag: Buffer | null = null;
  /** Once its answer is written or abandoned: nothing more is held (a late answer goes through the SDK whole). */
  private ended = false;
  /** Each held string's escape at each level, made once however often its stand-in appears. */
  private readonly escapes: [Buffer | undefined, Buffer | undefined][] = [];
  /** Each held string as UTF-8 (a view of a slab), made once for both levels. */
  private readonly encoded: (Buffer | undefined)[] = [];
  /** Each held string's length escaped once and twice, found in one pass. */
  private readonly lengths: ([number, number] | undefined)[] = [];
  private readonly slabs: Buffer[] = [];

  get size(): number {
    return this.held.length;
  }

  /**
   * Once the answer is written (its 'finish'): the slabs go back for the next answer, and the held strings
   * are let go (whatever still reaches this object keeps none).
   */
  release(): void {
    for (const slab of this.slabs) giveSlab(slab);
    this.forget();
  }

  /** When the answer was not written to its end (the client went away): nothing goes back to be reused. */
  forget(): void {
    this.ended = true;
    this.slabs.length = 0;
    this.held.length = 0;
    this.encoded.length = 0;
    this.lengths.length = 0;
    this.escapes.length = 0;
  }

  /**
   * The stand-in for `text` when it is worth splicing (long, and well-formed: a lone surrogate is escaped by
   * JSON.stringify but not by UTF-8), else `text` itself.
   */
  hold(text: string): string {
    if (this.ended || text.length < SPLICE_MIN_CHARS || !(text as unknown as { isWellFormed(): boolean }).isWellFormed()) return text;
    this.tag ??= Buffer.from(`${TAG}${++answers}.`);
    this.held.push(text);
    return `${MARK}${this.tag.toString('latin1')}${this.held.length - 1}${MARK}`;
  }

  /**
   * Every value of `result` held where it is worth it: strings of its own fields and of the objects and
   * arrays under them (a tool's result is a small tree; its large strings are outputs and logs).
   */
  holdIn(result: Record<string, unknown>): Record<string, unknown> {
    return this.holdValue(result, 0) as Record<string, unknown>;
  }

  private holdValue(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.hold(value);
    if (value === null || typeof value !== 'object' || depth > 8) return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | null = null;
      value.forEach((item, i) => {
        const held = this.holdValue(item, depth + 1);
        if (held !== item) (copy ??= [...value])[i] = held;
      });
      return copy ?? value;
    }
    // only plain objects are copied with a stand-in in them: a class instance or a toJSON would not survive a copy
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return value;
    let copy: Record<string, unknown> | null = null;
    for (const [key, item] of Object.entries(value)) {
      const held = this.holdValue(item, depth + 1);
      if (held !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = held;
    }
    return copy ?? value;
  }

  /**
   * `bytes` (JSON made by the SDK around stand-ins) with each stand-in replaced by its string, as the pieces
   * to write in order. Anything that is not a whole stand-in of this answer is left as it is.
   */
  splice(bytes: Buffer): Buffer[] {
    const tag = this.tag;
    if (this.held.length === 0 || !tag) return [bytes];
    const pieces: Buffer[] = [];
    let from = 0;
    let search = 0;
    for (;;) {
      const tagAt = bytes.indexOf(tag, search);
      if (tagAt < 0) break;
      search = tagAt + tag.length;
      const found = this.standInAt(bytes, tagAt, tag.length);
      if (!found) continue;
      pieces.push(bytes.subarray(from, found.start));
      pieces.push(this.escaped(found.index, found.level));
      from = search = found.end;
    }
    pieces.push(bytes.subarray(from));
    return pieces;
  }

  /** The stand-in whose tag starts at `tagAt`: where it starts and ends in `bytes`, its index and its level. */
  private standInAt(bytes: Buffer, tagAt: number, tagLength: number): { start: number; end: number; index: number; level: 0 | 1 } | null {
    const level = bytes[tagAt - MARK_AT[1].length] === BACKSLASH && bytes[tagAt - MARK_AT[1].length + 1] === BACKSLASH ? 1 : 0;
    const mark = MARK_AT[level];
    const start = tagAt - mark.length;
    if (start < 0 || !bytes.subarray(start, tagAt).equals(mark)) return null;
    let at = tagAt + tagLength;
    let index = 0;
    const digitsAt = at;
    while (at < bytes.length && (bytes[at] as number) >= 0x30 && (bytes[at] as number) <= 0x39 && at - digitsAt < 9) {
      index = index * 10 + ((bytes[at] as number) - 0x30);
      at++;
    }
    if (at === digitsAt || index >= this.held.length) return null;
    if (!bytes.subarray(at, at + mark.length).equals(mark)) return null;
    return { start, end: at + mark.length, index, level };
  }

  private slab(size: number): Buffer {
    const slab = takeSlab(size);
    this.slabs.push(slab);
    return slab;
  }

  /** Held string `index` as UTF-8, escaped as the inside of a JSON string once (level 0) or twice (level 1). */
  private escaped(index: number, level: 0 | 1): Buffer {
    const made = (this.escapes[index] ??= [undefined, undefined]);
    return (made[level] ??= this.escape(index, level));
  }

  private escape(index: number, level: 0 | 1): Buffer {
    let utf8 = this.encoded[index];
    if (!utf8) {
      const text = this.held[index] as string;
      const slab = this.slab(Buffer.byteLength(text, 'utf8'));
      utf8 = this.encoded[index] = slab.subarray(0, slab.write(text, 'utf8'));
    }
    // one pass finds the escaped bytes for both levels (the same bytes; only what each becomes differs)
    const scan = new SpecialScan(utf8);
    const lengths = (this.lengths[index] ??= escapedLengths(utf8, scan));
    if (lengths[level] === utf8.length) return utf8;
    const out = this.slab(lengths[level]);
    let at = 0;
    let run = 0;
    // terminal output escapes often (a line end, a colour's ESC every few bytes): the runs between are mostly
    // short, and copied byte by byte they cost less than a call into Buffer.copy each
    for (let i = scan.next(0); i < utf8.length; i = scan.next(i + 1)) {
      if (i - run > SHORT_RUN) at += utf8.copy(out, at, run, i);
      else for (let k = run; k < i; k++) out[at++] = utf8[k] as number;
      const escape = (ESCAPES[utf8[i] as number] as [Buffer, Buffer])[level];
      for (let k = 0; k < escape.length; k++) out[at++] = escape[k] as number;
      run = i + 1;
    }
    at += utf8.copy(out, at, run);
    return out.subarray(0, at);
  }
}
