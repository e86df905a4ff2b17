import { createRequire } from 'node:module';
import type xtermHeadless from '@xterm/headless';
import { QueryScanner } from './query-scanner';

type HeadlessTerminalClass = (typeof xtermHeadless)['Terminal'];
let headlessTerminal: HeadlessTerminalClass | undefined;
/**
 * @xterm/headless (CommonJS) is loaded on the first shell's mirror, not when the room process starts: it is
 * ~120 ms of module loading that a room answering calls without a shell never needs.
 */
function HeadlessTerminal(): HeadlessTerminalClass {
  headlessTerminal ??= (createRequire(import.meta.url)('@xterm/headless') as typeof xtermHeadless).Terminal;
  return headlessTerminal;
}

/** The terminal's screen as a person sees it: what `format: "screen"` reads answer. */
export interface ScreenSnapshot {
  cols: number;
  rows: number;
  /** One string per row, top to bottom, trailing blanks trimmed. */
  lines: string[];
  /** Where the cursor stands, 0-based from the top-left cell of the screen. */
  cursor: { row: number; col: number };
  /** A full-screen program (vim, less, top) switched to the alternate screen. */
  alternateScreen: boolean;
  /** DECCKM: arrow keys send ESC O A (application mode) instead of ESC [ A. */
  applicationCursorKeys: boolean;
  /** Output bytes the screen reflects (a shell_io cursor: the screen is as of this offset). */
  offset: number;
}

/** Where the mirror reads its bytes: the shell's scrollback ring (absolute offsets, UTF-8-aligned reads). */
export interface ByteSource {
  readonly end: number;
  readonly start: number;
  read(cursor: number, maxBytes: number): { bytes: Buffer; next: number };
}

/**
 * The emulator follows output as it comes while there is at most this much per RATE_WINDOW_MS; above that (a
 * flood, a build log) it is parsed only when needed: parsing as it comes would cap the shell at the parser's pace.
 */
const LIVE_BYTES = 64 * 1024;
const RATE_WINDOW_MS = 100;
/** After a flood, or when the emulator is made, it reads only this much of the output's end (the screen shows the end anyway). */
const TAIL_BYTES = 256 * 1024;
/** A flood is caught up once output has been quiet this long (or at once when someone reads the screen). */
const QUIET_MS = 1_000;
/** An emulator nothing has needed for this long is let go (made again, from the ring, when something does). */
const IDLE_MS = 30_000;

export interface MirrorOptions {
  /** Keep an emulator from the start and never let it go (a shell whose status rules read its screen). */
  live?: boolean;
  /** Let an emulator go after this long without a need (default IDLE_MS). */
  idleMs?: number;
  /** Hears every answer the emulator makes (as `onReply`, without a set of listeners per mirror). */
  reply?: (data: string) => void;
}

/**
 * A headless xterm that follows a shell's output (read from the same ring as every other consumer), so reads
 * can answer with the screen a person sees (cursor moves, redraws, the alternate screen) and keys can follow
 * the terminal's modes. The emulator costs ~400 KiB a shell (more than the shell's whole cost to tmux), so it is
 * made only when something needs it: a screen read, keys that follow its modes, a question the program asks its
 * terminal (QueryScanner watches for those meanwhile), or status rules that read the screen (those keep it:
 * `live`). It is made from the ring's last TAIL_BYTES, answering none of the questions in them (they were
 * answered when asked), and let go after IDLE_MS without a need. Parsing costs far more than appending to the
 * ring, so a flood is never parsed as it comes (that would slow the shell to the emulator's pace): the mirror
 * skips to the flood's last TAIL_BYTES once the output is quiet or a reader asks, like a terminal that drops
 * frames.
 */
export class ScreenMirror {
  private term: InstanceType<HeadlessTerminalClass> | undefined;
  /** Output offset up to which bytes were handed to the parser, and up to which they were parsed. */
  private fed: number;
  private parsed: number;
  private disposed = false;
  private quietTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private lastGrowth = 0;
  private lastNeed = 0;
  private windowStart = 0;
  private windowFrom = 0;
  /** While the emulator replays output from before it was made: the answers it makes are not sent. */
  private muted = false;
  private readonly queries = new QueryScanner();
  /** Made with the first listener (most mirrors are never asked anything, but every shell's listens). */
  private replyListeners: Set<(data: string) => void> | undefined;
  private readonly live: boolean;
  private readonly idleMs: number;
  private readonly reply: ((data: string) => void) | undefined;

  constructor(
    private readonly source: ByteSource,
    private cols: number,
    private rows: number,
    private readonly scrollback: number,
    options: MirrorOptions = {},
  ) {
    this.live = options.live ?? false;
    this.idleMs = options.idleMs ?? IDLE_MS;
    this.reply = options.reply;
    this.fed = this.parsed = source.end;
    if (this.live) this.make(source.end);
  }

  /** Whether an emulator is there now (made on demand; let go when idle). */
  get made(): boolean {
    return this.term !== undefined;
  }

  /**
   * Hears what the emulator answers to the program's queries (device attributes, cursor position, mode
   * reports), as a terminal would send them back; returns an unsubscribe.
   */
  onReply(listener: (data: string) => void): () => void {
    (this.replyListeners ??= new Set()).add(listener);
    return () => this.replyListeners?.delete(listener);
  }

  /** Whether arrow keys must be sent in application mode, as of the bytes parsed so far (await `settled` first). */
  get applicationCursorKeys(): boolean {
    return this.term?.modes.applicationCursorKeysMode ?? false;
  }

  /**
   * The source has new bytes (`bytes`, its newest): follow them now if they are few and the parser keeps up,
   * else once it is quiet. With no emulator, only a question in them makes one (answered from where it began).
   */
  grew(bytes: Uint8Array, now = Date.now()): void {
    if (this.disposed) return;
    this.lastGrowth = now;
    if (!this.term) {
      const asked = this.queries.feed(bytes, this.source.end - bytes.length);
      if (asked === null) return;
      this.need(now);
      this.make(asked);
      this.catchUp(); // the program waits on the answer: now, whatever the pace
      return;
    }
    if (now - this.windowStart >= RATE_WINDOW_MS) {
      this.windowStart = now;
      this.windowFrom = this.fed;
    }
    const calm = this.source.end - this.windowFrom <= LIVE_BYTES && this.fed - this.parsed <= LIVE_BYTES;
    if (calm) {
      this.catchUp();
      return;
    }
    this.armQuiet(QUIET_MS);
  }

  resize(cols: number, rows: number): void {
    if (this.disposed) return;
    this.cols = cols;
    this.rows = rows;
    if (!this.term) return;
    this.catchUp();
    this.term.resize(cols, rows);
  }

  /** Resolves once the screen reflects every byte of the source so far (making the emulator if there is none). */
  settled(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.need();
    const term = this.term ?? this.make(this.source.end);
    this.catchUp();
    if (this.parsed === this.fed) return Promise.resolve();
    return new Promise((resolve) => term.write('', () => resolve()));
  }

  /** The screen as of the source's newest byte (`offset`). */
  async snapshot(): Promise<ScreenSnapshot> {
    await this.settled();
    const lines = this.visibleLines();
    const buffer = this.term?.buffer.active;
    return {
      cols: this.cols,
      rows: this.rows,
      lines,
      cursor: { row: buffer?.cursorY ?? 0, col: buffer?.cursorX ?? 0 },
      alternateScreen: buffer?.type === 'alternate',
      applicationCursorKeys: this.applicationCursorKeys,
      offset: this.parsed,
    };
  }

  /**
   * The visible rows as parsed so far, at once (what the status rules read once output is quiet: their shells
   * keep an emulator; without one, one is made and these rows are blank until it has read the ring's tail).
   */
  visibleLines(): string[] {
    if (this.disposed) return [];
    this.need();
    const term = this.term ?? this.make(this.source.end);
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < term.rows; y++) lines.push((buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '').replace(/ +$/, ''));
    return lines;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.letGo();
  }

  /** An emulator of the output so far, having read the ring's tail up to `answerFrom` without answering it. */
  private make(answerFrom: number): InstanceType<HeadlessTerminalClass> {
    // logLevel off: xterm.js otherwise writes a "Parsing error" to the room's stderr for every odd byte a
    // program prints (a DEL after an escape sequence, a binary file cat'ed): the program's output, not the room's
    const term = new (HeadlessTerminal())({ cols: this.cols, rows: this.rows, scrollback: this.scrollback, allowProposedApi: true, logLevel: 'off' });
    this.term = term;
    term.onData((data) => {
      if (this.muted) return;
      this.reply?.(data);
      for (const listener of [...(this.replyListeners ?? [])]) listener(data);
    });
    const from = Math.max(this.source.start, answerFrom - TAIL_BYTES);
    this.fed = this.parsed = from;
    this.windowStart = 0;
    if (from < answerFrom) {
      const read = this.source.read(from, answerFrom - from);
      const next = read.next;
      this.fed = next;
      this.muted = true;
      term.write(read.bytes, () => {
        if (this.term !== term) return;
        this.muted = false;
        this.parsed = Math.max(this.parsed, next);
      });
    }
    return term;
  }

  /** Something needs the emulator: it is kept `idleMs` more (unless `live`: kept always). */
  private need(now = Date.now()): void {
    this.lastNeed = now;
    if (this.live || this.idleTimer) return;
    this.idleTimer = setTimeout(() => this.idle(), this.idleMs);
    this.idleTimer.unref();
  }

  private idle(): void {
    this.idleTimer = undefined;
    const since = Date.now() - this.lastNeed;
    if (since < this.idleMs) {
      this.idleTimer = setTimeout(() => this.idle(), this.idleMs - since);
      this.idleTimer.unref();
      return;
    }
    // a flood not parsed yet (its questions not answered yet) is caught up first: let go at the next look
    if (this.parsed < this.fed || this.quietTimer) return this.need();
    this.letGo();
  }

  private letGo(): void {
    clearTimeout(this.quietTimer);
    clearTimeout(this.idleTimer);
    this.quietTimer = this.idleTimer = undefined;
    this.term?.dispose();
    this.term = undefined;
    this.muted = false;
    this.queries.reset();
    this.fed = this.parsed = this.source.end;
  }

  private catchUp(): void {
    clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    const term = this.term;
    if (!term) return;
    const from = Math.max(this.fed, this.source.end - TAIL_BYTES, this.source.start);
    if (from >= this.source.end) return;
    const read = this.source.read(from, this.source.end - from);
    if (read.next <= from) return;
    this.fed = read.next;
    const next = read.next;
    term.write(read.bytes, () => {
      if (this.term === term) this.parsed = Math.max(this.parsed, next);
    });
  }

  private armQuiet(ms: number): void {
    if (this.quietTimer) return;
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      const quietFor = Date.now() - this.lastGrowth;
      if (quietFor >= QUIET_MS) this.catchUp();
      else this.armQuiet(QUIET_MS - quietFor);
    }, ms);
    this.quietTimer.unref();
  }
}
