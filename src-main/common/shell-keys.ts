import { RoomError } from './errors';

/** Named keys an agent may send, as the bytes a terminal would send for them. */
const NAMED: Record<string, string> = {
  Enter: '\r',
  Return: '\r',
  Tab: '\t',
  'S-Tab': '\u001b[Z',
  Escape: '\u001b',
  Esc: '\u001b',
  Backspace: '\u007f',
  Space: ' ',
  Up: '\u001b[A',
  Down: '\u001b[B',
  Right: '\u001b[C',
  Left: '\u001b[D',
  Home: '\u001b[H',
  End: '\u001b[F',
  PageUp: '\u001b[5~',
  PageDown: '\u001b[6~',
  Insert: '\u001b[2~',
  Delete: '\u001b[3~',
  F1: '\u001bOP',
  F2: '\u001bOQ',
  F3: '\u001bOR',
  F4: '\u001bOS',
  F5: '\u001b[15~',
  F6: '\u001b[17~',
  F7: '\u001b[18~',
  F8: '\u001b[19~',
  F9: '\u001b[20~',
  F10: '\u001b[21~',
  F11: '\u001b[23~',
  F12: '\u001b[24~',
};

/**
 * Cursor keys in application mode (DECCKM, `ESC [ ? 1 h`: vim, less, readline's keypad mode ask for it): SS3
 * instead of CSI, as xterm sends them.
 */
const APPLICATION_CURSOR: Record<string, string> = {
  Up: '\u001bOA',
  Down: '\u001bOB',
  Right: '\u001bOC',
  Left: '\u001bOD',
  Home: '\u001bOH',
  End: '\u001bOF',
};

export interface KeyModes {
  /** The terminal is in application cursor-key mode (DECCKM). */
  applicationCursorKeys?: boolean;
}

const CONTROL_PUNCTUATION: Record<string, number> = { '@': 0, '[': 27, '\\': 28, ']': 29, '^': 30, _: 31, '?': 127 };

/**
 * `C-c` → ETX (0x03), `M-x` → ESC x, `C-M-a`/`M-C-a` → ESC 0x01, plus the named keys above.
 * Unknown names are refused with the list of what is accepted. Cursor keys follow the terminal's mode.
 */
export function keyBytes(name: string, modes: KeyModes = {}): string {
  const lookup = (key: string): string | undefined => (modes.applicationCursorKeys ? (APPLICATION_CURSOR[key] ?? NAMED[key]) : NAMED[key]);
  const named = lookup(name);
  if (named !== undefined) return named;
  let rest = name;
  let meta = false;
  let control = false;
  for (;;) {
    if (rest.startsWith('M-') && rest.length > 2) {
      meta = true;
      rest = rest.slice(2);
    } else if (rest.startsWith('C-') && rest.length > 2) {
      control = true;
      rest = rest.slice(2);
    } else break;
  }
  let base: string | undefined = lookup(rest);
  if (base === undefined && rest.length === 1) {
    if (control) {
      const lower = rest.toLowerCase();
      if (lower >= 'a' && lower <= 'z') base = String.fromCharCode(lower.charCodeAt(0) - 96);
      else if (rest in CONTROL_PUNCTUATION) base = String.fromCharCode(CONTROL_PUNCTUATION[rest] as number);
      else if (rest === ' ') base = '\u0000';
      control = false;
    } else if (meta) base = rest;
  }
  if (base === undefined || control || (!meta && rest === name)) {
    throw new RoomError(
      'INVALID_INPUT',
      `unknown key ${JSON.stringify(name)}: use C-<letter> (e.g. C-c, C-d), M-<key>, or one of ${Object.keys(NAMED).join(', ')}`,
    );
  }
  return meta ? `\u001b${base}` : base;
}
