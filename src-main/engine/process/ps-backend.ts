import { childProcess } from '../platform/child-process';
import { PROC_TAG_ENV, type ProcessBackend, type ProcessRow } from './process-table';
import { signalPosix } from './posix-signal';

/**
 * POSIX `ps`: the backend for macOS, and usable on Linux (tests run the whole process-tree suite through it
 * there). One `ps` call gives pid, ppid, pgid, state, the start time (`lstart`, to the second) and the command
 * line followed by the environment (`-E` on macOS, `e` on Linux procps) — ps shows the environment of the
 * user's own processes only, which are the only ones the runner starts.
 *
 * Known limits: `lstart` has one-second resolution, so a pid recycled within the same second as the original
 * started would pass the identity check (the /proc backend counts clock ticks); and the command line and the
 * environment arrive as one space-joined string, so the tag is the LAST `COMMONROOM_PROC_TAG=` word (the
 * environment comes after the arguments; a tag value never contains spaces).
 */
const COLUMNS = 'pid=,ppid=,pgid=,stat=,lstart=,args=';

function envFlags(platform: NodeJS.Platform): string[] {
  return platform === 'darwin' ? ['-E'] : ['e'];
}

/** The argv for one look at every process (with environments), for `platform`. */
export function psListArgs(platform: NodeJS.Platform = process.platform): string[] {
  return ['-A', ...envFlags(platform), '-ww', '-o', COLUMNS];
}

/** The argv for a look at some pids only (no environments: a single process's start time needs none). */
export function psPidsArgs(pids: number[]): string[] {
  return ['-p', pids.join(','), '-o', 'pid=,ppid=,pgid=,stat=,lstart='];
}

const TAG_WORD = new RegExp(`(?:^|\\s)${PROC_TAG_ENV}=(\\S+)`, 'g');

/** The tag in a ps command+environment string: the last `COMMONROOM_PROC_TAG=` word, or null. */
export function tagFromPsArgs(args: string): string | null {
  let tag: string | null = null;
  for (const m of args.matchAll(TAG_WORD)) tag = m[1] ?? null;
  return tag;
}

/** Parses `ps -o pid=,ppid=,pgid=,stat=,lstart=,args=` output (run with LC_ALL=C) into rows. */
export function parsePsListing(text: string, selfPid: number = process.pid): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const line of text.split('\n')) {
    // pid ppid pgid stat, then lstart as five words ("Mon Nov 30 17:45:27 2026"), then the command line
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+\s+\S+\s+\d+\s+\d+:\d+:\d+\s+\d+)\s?(.*)$/.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === selfPid) continue;
    const startTime = (m[5] as string).replace(/\s+/g, ' ');
    rows.push({
      pid,
      ppid: Number(m[2]),
      pgid: Number(m[3]),
      startTime,
      startOrder: Date.parse(startTime) || 0,
      zombie: (m[4] as string).startsWith('Z'),
      tag: tagFromPsArgs(m[6] ?? ''),
    });
  }
  return rows;
}

const PS_OPTIONS = {
  encoding: 'utf8' as const,
  env: { ...process.env, LC_ALL: 'C' }, // lstart in a fixed, parseable form
  maxBuffer: 256 * 1024 * 1024,
};

function runPs(args: string[]): string {
  try {
    return childProcess().execFileSync('ps', args, { ...PS_OPTIONS, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    // ps exits 1 when -p matched nothing: that is an empty table, not a failure
    const out = (error as { stdout?: unknown }).stdout;
    if (typeof out === 'string') return out;
    throw error;
  }
}

function runPsAsync(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    childProcess().execFile('ps', args, PS_OPTIONS, (error, stdout) => {
      if (error && typeof stdout !== 'string') reject(error);
      else resolve(stdout);
    });
  });
}

export const psBackend: ProcessBackend = {
  name: 'ps',
  pollMs: 50,
  list: () => parsePsListing(runPs(psListArgs())),
  listAsync: async () => parsePsListing(await runPsAsync(psListArgs())),
  get: (pid) => parsePsListing(runPs(psPidsArgs([pid])), -1).find((r) => r.pid === pid) ?? null,
  signal(targets, signal, pgid) {
    // The identity check is the table killTree read right before calling this: for ps, a second `ps -p` would
    // be no fresher (the gap to the signal is one ps run either way) and would double the cost of each step.
    signalPosix(targets, signal, pgid, () => new Map(targets.map((t) => [t.pid, t.startTime] as const)));
  },
};
