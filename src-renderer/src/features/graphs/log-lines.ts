import type { LogRecord } from '../../../../src-main/common/methods/graphs';

/** One line of a stage's log as shown: its number (from 1, over the lines read), the stream it began on, its text. */
export interface LogLine {
  n: number;
  stream: LogRecord['stream'];
  text: string;
  /** The attempt it belongs to: the runner writes "[attempt N of M: …]" as each starts (0 before any such line). */
  attempt: number;
}

const ATTEMPT = /^\[attempt (\d+) of (\d+)/;

/** The log's records as lines (a record may hold several lines, or part of one), each with its attempt. */
export function logLines(records: readonly LogRecord[]): LogLine[] {
  const lines: LogLine[] = [];
  let attempt = 0;
  let open: LogLine | null = null;
  for (const r of records) {
    const parts = r.text.split('\n');
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      if (last && part === '') {
        open = null; // the record ended its line
        return;
      }
      if (open && i === 0 && open.stream === r.stream) {
        open.text += part;
      } else {
        if (r.stream === 'runner') {
          const m = ATTEMPT.exec(part);
          if (m) attempt = Number(m[1]);
        }
        open = { n: lines.length + 1, stream: r.stream, text: part, attempt };
        lines.push(open);
      }
      if (!last) open = null;
    });
  }
  return lines;
}

/** The attempts the lines hold, in order (empty when the log names none). */
export function attemptsIn(lines: readonly LogLine[]): number[] {
  return [...new Set(lines.map((l) => l.attempt).filter((a) => a > 0))];
}
