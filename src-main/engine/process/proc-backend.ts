import fs from 'node:fs';
import { tagFromEntries, type ProcessBackend, type ProcessIdentity, type ProcessRow } from './process-table';
import { signalPosix } from './posix-signal';

/**
 * Linux: the table read straight from /proc (no child process per look). The start time is field 22 of
 * /proc/<pid>/stat, in clock ticks since boot; the tag is read from /proc/<pid>/environ, which is readable
 * for the user's own processes only.
 */
let procFs: boolean | undefined;
export function hasProcFs(): boolean {
  procFs ??= process.platform === 'linux' && fs.existsSync('/proc/self/stat');
  return procFs;
}

function readRow(pid: number, withTag: boolean): ProcessRow | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // the command name (field 2) may contain spaces and parentheses: fields after the last ')' are fixed
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = rest[0] ?? '?';
  const startTime = rest[19] ?? '';
  return {
    pid,
    ppid: Number(rest[1]),
    pgid: Number(rest[2]),
    startTime,
    startOrder: Number(startTime),
    zombie: state === 'Z' || state === 'X',
    tag: withTag ? readTag(pid) : null,
  };
}

function readTag(pid: number): string | null {
  try {
    return tagFromEntries(fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0'));
  } catch {
    return null; // gone, or not ours to read
  }
}

export const procBackend: ProcessBackend = {
  name: 'proc',
  pollMs: 25,
  list() {
    const rows: ProcessRow[] = [];
    for (const name of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const pid = Number(name);
      if (pid === process.pid) continue;
      const row = readRow(pid, true);
      if (row) rows.push(row);
    }
    return rows;
  },
  // reading /proc costs no process and little time: the synchronous read is fine
  listAsync() {
    return Promise.resolve(this.list());
  },
  get: (pid) => readRow(pid, true),
  signal(targets: ProcessIdentity[], signal, pgid) {
    signalPosix(targets, signal, pgid, (pids) => {
      const times = new Map<number, string>();
      for (const pid of pids) {
        const row = readRow(pid, false);
        if (row && !row.zombie) times.set(pid, row.startTime);
      }
      return times;
    });
  },
};
