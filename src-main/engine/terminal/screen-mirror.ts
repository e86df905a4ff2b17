import { createRequire } from 'node:module';
import type xtermHeadless from '@xterm/headless';

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
/** After a flood, the emulator catches up on only this much of its end (the screen shows the end anyway). */
const TAIL_BYTES = 256 * 1024;
/** A flood is caught up once output has been quiet this long (or at once when someone reads the screen). */
const QUIET_MS = 1_000;

/**
 * A headless xterm that follows a shell's output (read from the same ring as every other consumer), so reads
 * can answer with the screen a person sees (cursor moves, redraws, the alternate screen) and keys can follow
 * the terminal's modes. Memory is the screen plus `scrollback` lines. Parsing costs far more than appending to
 * the ring, so a flood is never parsed as it comes (that would slow the shell to the emulator's pace): the
 * mirror skips to the flood's last TAIL_BYTES once the output is quiet or a reader asks, like a terminal that
 * drops frames.
 */
export class ScreenMirror {
  private readonly term: InstanceType<HeadlessTerminalClass>;
  /** Output offset up to which bytes were handed to the parser, and up to which they were parsed. */
  private fed: number;
  private parsed: number;
  private disposed = false;
  private quietTimer: NodeJS.Timeout | undefined;
  private lastGrowth = 0;
  private windowStart = 0;
  private windowFrom = 0;

  constructor(
    private readonly source: ByteSource,
    cols: number,
    rows: number,
    scrollback: number,
  ) {
    // logLevel off: xterm.js otherwise writes a "Parsing error" to the room's stderr for every odd byte a
    // program prints (a DEL after an escape sequence, a binary file cat'ed): the program's output, not the room's
    this.term = new (HeadlessTerminal())({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off' });
    this.fed = this.parsed = source.end;
  }

  /**
   * Hears what the emulator answers to the program's queries (device attributes, cursor position, mode
   * reports), as a terminal would send them back; returns an unsubscribe.
   */
  onReply(listener: (data: string) => void): () => void {
    const subscription = this.term.onData(listener);
    return () => subscription.dispose();
  }

  /** Whether arrow keys must be sent in application mode, as of the bytes parsed so far (see `settled`). */
  get applicationCursorKeys(): boolean {
    return this.term.modes.applicationCursorKeysMode;
  }

  /** The source has new bytes: follow them now if they are few and the parser keeps up, else once it is quiet. */
  grew(now = Date.now()): void {
    if (this.disposed) return;
    this.lastGrowth = now;
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
    this.catchUp();
    this.term.resize(cols, rows);
  }

  /** Resolves once the screen reflects every byte of the source so far. */
  settled(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.catchUp();
    if (this.parsed === this.fed) return Promise.resolve();
    return new Promise((resolve) => this.term.write('', () => resolve()));
  }

  /** The screen as of the source's newest byte (`offset`). */
  async snapshot(): Promise<ScreenSnapshot> {
    await this.settled();
    const buffer = this.term.buffer.active;
    const lines = this.visibleLines();
    return {
      cols: this.term.cols,
      rows: this.term.rows,
      lines,
      cursor: { row: buffer.cursorY, col: buffer.cursorX },
      alternateScreen: buffer.type === 'alternate',
      applicationCursorKeys: this.applicationCursorKeys,
      offset: this.parsed,
    };
  }

  /** The visible rows as parsed so far, at once (what the status rules read once output is quiet). */
  visibleLines(): string[] {
    if (this.disposed) return [];
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) lines.push((buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '').replace(/ +$/, ''));
    return lines;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.quietTimer);
    this.term.dispose();
  }

  private catchUp(): void {
    clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    const from = Math.max(this.fed, this.source.end - TAIL_BYTES, this.source.start);
    if (from >= this.source.end) return;
    const read = this.source.read(from, this.source.end - from);
    if (read.next <= from) return;
    this.fed = read.next;
    const next = read.next;
    this.term.write(read.bytes, () => {
      this.parsed = Math.max(this.parsed, next);
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
