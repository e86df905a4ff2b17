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

function readNumber(file: string): number | null {
  try {
    const n = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

/** The pids /proc lists, this process's own left out (the runner never signals itself). */
function* otherPids(): Generator<number> {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid !== process.pid) yield pid;
  }
}

/** Up to this many pids in the range, each is looked up by name; past it, /proc is listed once (it may be shorter). */
const PROBE_RANGE = 64;

/**
 * The pids from `first` to `last` that may be live processes, this process's own left out. A short range (the
 * usual one: a stage's exit comes a few forks after its start) is probed pid by pid, one failed open each for
 * the gaps, instead of listing /proc, whose reading costs more than the whole probe on a busy machine.
 */
function pidsBetween(first: number, last: number): { pids: Iterable<number>; probed: boolean } {
  if (last - first > PROBE_RANGE) return { pids: [...otherPids()].filter((pid) => pid >= first && pid <= last), probed: false };
  const pids: number[] = [];
  for (let pid = first; pid <= last; pid++) if (pid !== process.pid) pids.push(pid);
  return { pids, probed: true };
}

/**
 * Whether `pid` names a process and not one of its threads: /proc answers a thread's id by name too (it only
 * leaves threads out of its listing), and a thread is ended with its process, never on its own.
 */
function isProcessLeader(pid: number): boolean {
  try {
    return new RegExp(`^Tgid:\\s*${pid}$`, 'm').test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

let pidMax: number | null | undefined;
/** A bound no fork rate reaches: pids handed out per millisecond (used to rule out a whole wrap of the pid space). */
const MAX_FORKS_PER_MS = 20;

/**
 * The processes started since `root`, read without opening every /proc entry: Linux hands out pids in
 * increasing order until they wrap at pid_max, so while the last pid handed out (ns_last_pid) is still above
 * the root's, and too little time passed for a whole wrap, every process started after the root has a pid
 * between the two. Their start time is checked too (a pid reused is older). Null when that cannot be told.
 */
function listNewerThan(root: ProcessIdentity, spawnedAtMs: number): ProcessRow[] | null {
  pidMax ??= readNumber('/proc/sys/kernel/pid_max');
  const last = readNumber('/proc/sys/kernel/ns_last_pid');
  if (pidMax === null || last === null || last < root.pid) return null;
  if (Date.now() - spawnedAtMs >= pidMax / MAX_FORKS_PER_MS) return null;
  const rootStart = Number(root.startTime);
  const rows: ProcessRow[] = [];
  const { pids, probed } = pidsBetween(root.pid, last);
  for (const pid of pids) {
    const row = readRow(pid, false);
    if (!row || row.startOrder < rootStart || (probed && !isProcessLeader(pid))) continue;
    row.tag = readTag(pid);
    rows.push(row);
  }
  return rows;
}

export const procBackend: ProcessBackend = {
  listNewerThan,
  name: 'proc',
  pollMs: 25,
  list() {
    const rows: ProcessRow[] = [];
    for (const pid of otherPids()) {
      const row = readRow(pid, true);
      if (row) rows.push(row);
    }
    return rows;
  },
  listTagged() {
    const rows: ProcessRow[] = [];
    for (const pid of otherPids()) {
      // most processes carry no tag: their environ is the only read (stat only for the tagged few)
      const tag = readTag(pid);
      if (tag === null) continue;
      const row = readRow(pid, false);
      if (row) rows.push({ ...row, tag });
    }
    return rows;
  },
  // reading /proc costs no process and little time: the synchronous read is fine
  listAsync() {
    return Promise.resolve(this.list());
  },
  get: (pid) => readRow(pid, false),
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
