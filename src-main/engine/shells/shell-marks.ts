/**
 * Shell integration marks (OSC 133, as FinalTerm, VS Code, kitty and WezTerm use them) found in a shell's
 * output: `A` a prompt starts, `B` the prompt ends (the shell waits for input), `C` a command's output starts,
 * `D;<exit code>` the command finished. Only marks carrying this shell's nonce (`cr=<nonce>`) count, so a
 * program that prints a transcript of another shell cannot end a run. The marks stay in the byte stream (a
 * terminal ignores them: they are invisible); text reads strip them like any other OSC.
 */
export type MarkKind = 'A' | 'B' | 'C' | 'D';

export interface ShellMark {
  kind: MarkKind;
  /** For D: the command's exit code (null when the shell gave none). */
  exitCode: number | null;
  /** Byte offsets of the mark's first byte and of the byte after it. */
  start: number;
  end: number;
}

const INTRO = Buffer.from('\u001b]133;', 'latin1');
const EMPTY = Buffer.alloc(0);
/** A mark longer than this is not ours (ours are < 64 bytes): scanning stops looking for its end. */
const MAX_MARK_BYTES = 256;
/** Marks remembered per shell: a run needs the few since it started. */
const KEEP_MARKS = 256;

/** The kinds as the literals of this module: a mark kept holds one of these, not a string of its own cut from the output. */
const KINDS: Readonly<Record<string, MarkKind>> = { A: 'A', B: 'B', C: 'C', D: 'D' };

/** Parses the payload after `ESC ] 133 ;` up to the terminator. Exported for tests. */
export function parseMarkPayload(payload: string, nonce: string): { kind: MarkKind; exitCode: number | null } | null {
  const parts = payload.split(';');
  const kind = Object.hasOwn(KINDS, parts[0] ?? '') ? KINDS[parts[0] as string] : undefined;
  if (kind === undefined) return null;
  if (!parts.includes(`cr=${nonce}`)) return null;
  let exitCode: number | null = null;
  if (kind === 'D' && parts[1] !== undefined && /^-?\d{1,10}$/.test(parts[1])) exitCode = Number(parts[1]);
  return { kind, exitCode };
}

/** Follows one shell's output, chunk by chunk, and keeps the newest marks with their offsets. */
export class ShellMarks {
  readonly marks: ShellMark[] = [];
  /** Bytes of a mark (or of its intro) cut by the end of the previous chunk, and the offset they start at. */
  private carry = EMPTY;
  private carryAt = 0;

  constructor(readonly nonce: string) {}

  /** `chunk` is the output starting at byte offset `offset`. Returns the marks it completed. */
  feed(chunk: Buffer, offset: number): ShellMark[] {
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const base = this.carry.length > 0 ? this.carryAt : offset;
    this.carry = EMPTY;
    const found: ShellMark[] = [];
    let from = 0;
    for (;;) {
      const at = data.indexOf(INTRO, from);
      if (at < 0) break;
      const end = findTerminator(data, at + INTRO.length);
      if (end === null) {
        if (data.length - at < MAX_MARK_BYTES) this.keep(data, at, base);
        return this.remember(found);
      }
      const parsed = parseMarkPayload(data.subarray(at + INTRO.length, end.payloadEnd).toString('latin1'), this.nonce);
      // one shape for every mark, its fields in the object (a spread of `parsed` gave each an extra property array)
      if (parsed) found.push({ kind: parsed.kind, exitCode: parsed.exitCode, start: base + at, end: base + end.next });
      from = end.next;
    }
    // the chunk may end inside the intro itself
    for (let keep = Math.min(INTRO.length - 1, data.length); keep > 0; keep--) {
      if (data.subarray(data.length - keep).equals(INTRO.subarray(0, keep))) {
        this.keep(data, data.length - keep, base);
        break;
      }
    }
    return this.remember(found);
  }

  /** The first mark of `kind` that starts at or after `offset` (and before `before`, when given). */
  find(kind: MarkKind, offset: number, before = Infinity): ShellMark | undefined {
    return this.marks.find((m) => m.kind === kind && m.start >= offset && m.start < before);
  }

  /** The newest mark, if any: tells whether the shell sits at its prompt (B) or runs something (C). */
  get last(): ShellMark | undefined {
    return this.marks.at(-1);
  }

  private keep(data: Buffer, at: number, base: number): void {
    this.carry = Buffer.from(data.subarray(at));
    this.carryAt = base + at;
  }

  private remember(found: ShellMark[]): ShellMark[] {
    if (found.length === 0) return found;
    for (const mark of found) this.marks.push(mark);
    if (this.marks.length > KEEP_MARKS) this.marks.splice(0, this.marks.length - KEEP_MARKS);
    return found;
  }
}

/** The end of an OSC payload (BEL or ESC \) starting at `from`, within MAX_MARK_BYTES; null when not there yet. */
function findTerminator(data: Buffer, from: number): { payloadEnd: number; next: number } | null {
  const limit = Math.min(data.length, from + MAX_MARK_BYTES);
  for (let i = from; i < limit; i++) {
    const b = data[i];
    if (b === 0x07) return { payloadEnd: i, next: i + 1 };
    if (b === 0x1b) {
      if (i + 1 >= data.length) return null;
      return { payloadEnd: i, next: data[i + 1] === 0x5c ? i + 2 : i + 1 };
    }
  }
  // too long to be ours: give up on it (a payload end further on is not looked for)
  return limit - from >= MAX_MARK_BYTES ? { payloadEnd: limit, next: limit } : null;
}
