/**
 * What the person types, sent to one shell in order: one shell_io call at a time, with keystrokes typed
 * meanwhile folded into the next call (so fast typing or a big paste never reorders or floods the room), and
 * a paste larger than a call may carry cut into pieces.
 */

/** Characters per call: at most 4 UTF-8 bytes each, so a piece stays under the room's 64 KiB input limit. */
export const INPUT_CHUNK_CHARS = 16_000;

export class ShellInput {
  private buffer = '';
  private sending = false;

  constructor(
    private readonly send: (text: string) => Promise<unknown>,
    private readonly failed: (error: unknown) => void,
  ) {}

  push(text: string): void {
    this.buffer += text;
    if (!this.sending) void this.drain();
  }

  private async drain(): Promise<void> {
    this.sending = true;
    while (this.buffer.length > 0) {
      const piece = takePiece(this.buffer);
      this.buffer = this.buffer.slice(piece.length);
      try {
        await this.send(piece);
      } catch (error) {
        this.buffer = ''; // the rest of a refused input would land out of context
        this.failed(error);
      }
    }
    this.sending = false;
  }
}

/** The next piece of `text`, never splitting a surrogate pair. */
export function takePiece(text: string, max = INPUT_CHUNK_CHARS): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
