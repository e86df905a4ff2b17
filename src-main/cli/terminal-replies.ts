/**
 * What a person's terminal answers by itself when the program it shows asks (device attributes, cursor
 * position, mode reports, colours, version): ce shell attach drops these from the keys it sends, because the
 * room's own screen answers every query once (engine/shells/pty-shell.ts). Sent on, a query replayed on attach would be
 * answered again, long after, as if typed.
 *
 * Only shapes no key sends: device attributes (CSI ? … c, CSI > … c, CSI = … c), mode reports (CSI … $ y),
 * keyboard-protocol reports (CSI ? … u), string replies (OSC, DCS), and cursor position reports other than
 * row 1 with a column up to 16 (CSI 1;2…16 R is also F3 with a modifier).
 */
const REPLY = new RegExp(
  [
    '\\x1b\\[[?>=][0-9;]*c',
    '\\x1b\\[\\??[0-9;]*\\$y',
    '\\x1b\\[\\?[0-9;]*u',
    '\\x1b\\][0-9]+;[^\\x07\\x1b]*(?:\\x07|\\x1b\\\\)',
    '\\x1bP[^\\x1b]*\\x1b\\\\',
    '\\x1b\\[[0-9]+;[0-9]+R',
  ].join('|'),
  'g',
);

function isModifiedF3(cpr: string): boolean {
  const m = /^.\[1;([0-9]+)R$/.exec(cpr); // an ESC, as REPLY matched it
  return m !== null && Number(m[1]) >= 2 && Number(m[1]) <= 16;
}

/** The person's input without the terminal's own replies. */
export function withoutTerminalReplies(text: string): string {
  if (!text.includes('\x1b')) return text;
  return text.replace(REPLY, (reply) => (reply.endsWith('R') && isModifiedF3(reply) ? reply : ''));
}
