/**
 * What the person types, sent to one shell through its live attachment: messages on one ordered link, so
 * keystrokes keep their order without waiting for answers; a paste larger than one message may carry is cut
 * into pieces, never inside a surrogate pair.
 */

/** Characters per message: at most 4 UTF-8 bytes each, so a piece stays under the room's 64 KiB input limit. */
export const INPUT_CHUNK_CHARS = 16_000;

/** Sends `text` in pieces through `write`; stops at the first piece the link could not take, and says so. */
export function sendTyped(text: string, write: (piece: string) => boolean, notSent: () => void): void {
  let rest = text;
  while (rest.length > 0) {
    const piece = takePiece(rest);
    if (!write(piece)) {
      notSent();
      return;
    }
    rest = rest.slice(piece.length);
  }
}

/** The next piece of `text`, never splitting a surrogate pair. */
export function takePiece(text: string, max = INPUT_CHUNK_CHARS): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
