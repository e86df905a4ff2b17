import xtermHeadless from '@xterm/headless';

// @xterm/headless is CommonJS without named-export hints: Node sees only its default export
const { Terminal: HeadlessTerminal } = xtermHeadless;

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

/**
 * A headless xterm fed the same bytes as a shell's scrollback ring, so reads can answer with the screen a
 * person sees (cursor moves, redraws, the alternate screen) and keys can follow the terminal's modes. Memory
 * is the screen plus `scrollback` lines. The parser runs asynchronously: `pending` is how far it is behind,
 * which the shell uses as backpressure (like a real terminal, a program cannot outrun the emulator without bound).
 */
export class ScreenMirror {
  private readonly term: InstanceType<typeof HeadlessTerminal>;
  private written = 0;
  private parsed = 0;
  private disposed = false;
  private readonly drainListeners = new Set<() => void>();

  constructor(cols: number, rows: number, scrollback: number) {
    this.term = new HeadlessTerminal({ cols, rows, scrollback, allowProposedApi: true });
  }

  /** Bytes handed to the parser and not yet parsed. */
  get pending(): number {
    return this.written - this.parsed;
  }

  /** Whether arrow keys must be sent in application mode; as of the bytes parsed so far (see `settled`). */
  get applicationCursorKeys(): boolean {
    return this.term.modes.applicationCursorKeysMode;
  }

  write(bytes: Buffer): void {
    if (this.disposed) return;
    this.written += bytes.length;
    const length = bytes.length;
    this.term.write(bytes, () => {
      this.parsed += length;
      for (const listener of [...this.drainListeners]) listener();
    });
  }

  /** Called whenever the parser catches up with some bytes. Returns an unsubscribe. */
  onParsed(listener: () => void): () => void {
    this.drainListeners.add(listener);
    return () => this.drainListeners.delete(listener);
  }

  resize(cols: number, rows: number): void {
    if (!this.disposed) this.term.resize(cols, rows);
  }

  /** Resolves once every byte written so far is parsed. */
  settled(): Promise<void> {
    if (this.disposed || this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.term.write('', () => resolve()));
  }

  /** The screen after every byte written so far (and maybe a few more that arrived meanwhile: see `offset`). */
  async snapshot(): Promise<ScreenSnapshot> {
    await this.settled();
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
    return {
      cols: this.term.cols,
      rows: this.term.rows,
      lines,
      cursor: { row: buffer.cursorY, col: buffer.cursorX },
      alternateScreen: buffer.type === 'alternate',
      applicationCursorKeys: this.applicationCursorKeys,
      // fed every byte since the shell started, so the bytes parsed are the output offset the screen shows
      offset: this.parsed,
    };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.drainListeners.clear();
    this.term.dispose();
  }
}
