const ESC = 0x1b;

/**
 * Finds, in output no emulator follows, the questions a program asks its terminal and waits on (the ones the
 * emulator answers): device attributes (CSI c, CSI > c, CSI = c), status and cursor-position reports (CSI n),
 * mode reports (CSI … $ p), window reports (CSI … t), the terminal's version (CSI > q) and any DCS (DECRQSS,
 * XTGETTCAP). Other sequences (colours, cursor moves, modes set) pass. One indexOf for a chunk without ESC.
 */
export class QueryScanner {
  /** 0: text; 1: after ESC; 2: inside a CSI. */
  private state = 0;
  /** Where the sequence being read began, its parameters' prefix (?, >, =) and whether an intermediate was '$'. */
  private startedAt = 0;
  private prefix = 0;
  private dollar = false;

  /** The offset where the first question in `bytes` (which start at `offset`) began, or null. */
  feed(bytes: Uint8Array, offset: number): number | null {
    let i = this.state === 0 ? bytes.indexOf(ESC) : 0;
    if (i < 0) return null;
    for (; i < bytes.length; i++) {
      const b = bytes[i] as number;
      if (b === ESC) {
        this.state = 1;
        this.startedAt = offset + i;
        continue;
      }
      if (this.state === 1) {
        if (b === 0x50) return this.found(); // ESC P: a DCS
        if (b === 0x5b) {
          this.state = 2;
          this.prefix = 0;
          this.dollar = false;
        } else this.state = 0;
      } else if (this.state === 2) {
        if (b >= 0x3c && b <= 0x3f && this.prefix === 0) this.prefix = b;
        else if (b === 0x24) this.dollar = true;
        else if (b === 0x18 || b === 0x1a) this.state = 0; // CAN, SUB: the sequence is abandoned
        else if (b >= 0x40 && b <= 0x7e) {
          this.state = 0;
          const question = b === 0x63 || b === 0x6e || b === 0x74 || (b === 0x70 && this.dollar) || (b === 0x71 && this.prefix === 0x3e);
          if (question) return this.found();
        }
      } else {
        const next = bytes.indexOf(ESC, i + 1);
        if (next < 0) return null;
        i = next - 1;
      }
    }
    return null;
  }

  reset(): void {
    this.state = 0;
  }

  private found(): number {
    this.state = 0;
    return this.startedAt;
  }
}
