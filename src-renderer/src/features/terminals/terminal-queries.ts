import type { IDisposable, Terminal } from '@xterm/xterm';

/**
 * A watched terminal answers no program's questions. xterm.js replies to terminal queries by itself (device
 * attributes, cursor position and status reports, mode and setting requests, window size reports, colour
 * queries, focus reports) and those replies come out as input: in a room they would be typed into an agent's
 * shell as the person's own keystrokes, once per viewer. The queries are taken here and left unanswered;
 * the person's keys, pastes and mouse reports go through as before.
 */
export function silenceTerminalQueries(term: Terminal): IDisposable {
  const p = term.parser;
  const handled = () => true;
  // window operations that report (sizes, positions, titles); the others (none here) fall through
  const REPORTS = new Set([11, 13, 14, 15, 16, 18, 19, 20, 21]);
  const handlers: IDisposable[] = [
    p.registerCsiHandler({ final: 'c' }, handled), // DA1
    p.registerCsiHandler({ prefix: '>', final: 'c' }, handled), // DA2
    p.registerCsiHandler({ prefix: '=', final: 'c' }, handled), // DA3
    p.registerCsiHandler({ final: 'n' }, handled), // DSR: status, cursor position
    p.registerCsiHandler({ prefix: '?', final: 'n' }, handled), // DEC DSR
    p.registerCsiHandler({ intermediates: '$', final: 'p' }, handled), // DECRQM (ANSI modes)
    p.registerCsiHandler({ prefix: '?', intermediates: '$', final: 'p' }, handled), // DECRQM (DEC modes)
    p.registerCsiHandler({ final: 't' }, (params) => REPORTS.has(Number(params[0] ?? 0))),
    p.registerDcsHandler({ intermediates: '$', final: 'q' }, handled), // DECRQSS
    // colour queries ("?"): answered by nobody; colour settings go through to xterm as before
    ...[4, 10, 11, 12, 17, 19].map((id) => p.registerOscHandler(id, (data) => data.split(';').includes('?'))),
  ];
  return { dispose: () => handlers.forEach((h) => h.dispose()) };
}

/** Focus reports (CSI I / CSI O) xterm sends when the page gains or loses focus: not the person's input. */
export function isFocusReport(data: string): boolean {
  return data === '\x1b[I' || data === '\x1b[O';
}
