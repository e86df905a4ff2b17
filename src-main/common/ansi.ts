/**
 * Terminal control sequences removed for agents that want plain text: CSI (colours, cursor moves), OSC
 * (titles, hyperlinks; terminated by BEL or ST), other two-byte escapes, and stray control characters
 * except newline and tab. Carriage returns before a newline are dropped; a lone CR is kept as a newline
 * boundary so progress bars do not glue lines together.
 */
const ANSI_PATTERN = new RegExp(
  [
    '\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)', // OSC … BEL | ST
    '\\u001b[P^_][^\\u001b]*\\u001b\\\\', // DCS / PM / APC … ST
    '\\u001b\\[[0-?]*[ -/]*[@-~]', // CSI
    '\\u001b[ -/]*[0-~]', // other escapes (charset selection, keypad modes, …)
    '\\u009b[0-?]*[ -/]*[@-~]', // 8-bit CSI
  ].join('|'),
  'g',
);

export function stripAnsi(text: string): string {
  return text
    .replace(ANSI_PATTERN, '')
    .replace(/\r+\n/g, '\n')
    .replace(/\r/g, '\n')
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

/**
 * Text someone else wrote, for one line a person reads (a notification, a client's name): every run of
 * control characters (C0, DEL, C1) becomes one space, so nothing in it is obeyed or breaks the line.
 */
export function controlsToSpaces(text: string): string {
  // eslint-disable-next-line no-control-regex -- replacing control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}
