/**
 * Text from agents (summaries, results, reasons, stage names and output) shown in a person's terminal with
 * every control character made visible instead of obeyed: an escape sequence could write the clipboard
 * (OSC 52), retitle the window, move the cursor to forge a line, hide text, or ring bells; a bidi override
 * could reorder what the person reads. Newlines and tabs stay; everything else below U+0020, DEL, the C1
 * range and the bidi controls become \xNN or \u{NNNN}. `--json` output is never changed (JSON escapes them).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function visible(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}
