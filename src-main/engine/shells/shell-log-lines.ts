import { stripAnsi } from '../../common/ansi';
import type { RingRead } from './scrollback-ring';

/** A page of shell-log:// records: `seq` is the byte offset where each line starts. */
export interface LogLines {
  records: { seq: number; text: string }[];
  nextSeq: number;
  more: boolean;
  truncated: boolean;
}

/**
 * The lines of a read of a shell's output ring (ANSI stripped), at most `limit`: a line still being written
 * waits for its newline, unless the shell has ended and nothing is left to read.
 */
export function logLines(read: RingRead, alive: boolean, limit: number): LogLines {
  const text = read.bytes;
  const records: { seq: number; text: string }[] = [];
  let start = 0;
  let more = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== 0x0a) continue;
    if (records.length === limit) {
      more = true;
      break;
    }
    const end = i > start && text[i - 1] === 0x0d ? i - 1 : i; // a terminal ends lines with CR LF
    // a CR at the start of a line moves nowhere (bash's "end bracketed paste" sequence ends with one before
    // every command's output): it must not become an empty first line inside the record
    records.push({ seq: read.start + start, text: stripAnsi(text.subarray(start, end).toString('utf8')).replace(/^\n+/, '') });
    start = i + 1;
  }
  if (!more && start < text.length && !alive && !read.more && records.length < limit) {
    records.push({ seq: read.start + start, text: stripAnsi(text.subarray(start).toString('utf8')) });
    start = text.length;
  }
  return { records, nextSeq: read.start + start, more: more || read.more, truncated: read.truncated };
}
