import fs from 'node:fs';

/**
 * Finding and ending whole process trees, including descendants that left the process group (setsid,
 * nohup, double fork). Every process the runner starts carries COMMONROOM_PROC_TAG in its environment,
 * which children inherit; a tagged process is found by scanning /proc. Before any signal, the pid's start
 * time is checked against what was seen when it was found, so a recycled pid is never signalled.
 * Linux only (/proc); elsewhere the process-group signal is all there is.
 */
export const PROC_TAG_ENV = 'COMMONROOM_PROC_TAG';

export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (field 22 of /proc/<pid>/stat): with the pid, unique over time. */
  startTime: string;
}

export interface KillPlan {
  /** Sent in order; after each, wait up to graceMs for the tree to be gone. */
  signals: NodeJS.Signals[];
  graceMs: number;
}

export interface KillReport {
  /** The signals actually sent, in order. */
  sent: NodeJS.Signals[];
  /** Processes still alive after the last signal (should be 0; a process in uninterruptible sleep can linger). */
  survivors: number;
}

const hasProc = process.platform === 'linux' && fs.existsSync('/proc/self/stat');

/** The environment entry that tags a process: `COMMONROOM_PROC_TAG=<tag>`. */
export function tagEnv(env: NodeJS.ProcessEnv, tag: string): NodeJS.ProcessEnv {
  return { ...env, [PROC_TAG_ENV]: tag };
}

interface Stat {
  ppid: number;
  pgid: number;
  state: string;
  startTime: string;
}

function readStat(pid: number): Stat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // the command name (field 2) may contain spaces and parentheses: fields after the last ')' are fixed
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = rest[0] ?? '?';
  return { state, ppid: Number(rest[1]), pgid: Number(rest[2]), startTime: rest[19] ?? '' };
}

export function processStartTime(pid: number): string | null {
  return readStat(pid)?.startTime ?? null;
}

/** Alive and not a zombie, and (when given) still the same process it was. */
export function isAlive(p: number | ProcessIdentity): boolean {
  const pid = typeof p === 'number' ? p : p.pid;
  if (hasProc) {
    const stat = readStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') return false;
    return typeof p === 'number' || stat.startTime === p.startTime;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function listPids(): number[] {
  if (!hasProc) return [];
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

function tagOf(pid: number): string | null {
  let environ: string;
  try {
    environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return null; // gone, or not ours to read
  }
  const prefix = `${PROC_TAG_ENV}=`;
  for (const entry of environ.split('\0')) if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return null;
}

/** Live processes whose tag equals `tag`, or starts with it when `prefix` is true. */
export function findTagged(tag: string, options: { prefix?: boolean } = {}): ProcessIdentity[] {
  const found: ProcessIdentity[] = [];
  for (const pid of listPids()) {
    const t = tagOf(pid);
    if (t === null || !(options.prefix ? t.startsWith(tag) : t === tag)) continue;
    const stat = readStat(pid);
    if (stat && stat.state !== 'Z') found.push({ pid, startTime: stat.startTime });
  }
  return found;
}

/** Live members of a process group. */
function groupMembers(pgid: number): ProcessIdentity[] {
  const found: ProcessIdentity[] = [];
  for (const pid of listPids()) {
    const stat = readStat(pid);
    if (stat && stat.pgid === pgid && stat.state !== 'Z') found.push({ pid, startTime: stat.startTime });
  }
  return found;
}

function signalIfSame(p: ProcessIdentity, signal: NodeJS.Signals): void {
  // the start time check happens right before the signal: a pid that was recycled is left alone
  if (hasProc && processStartTime(p.pid) !== p.startTime) return;
  try {
    process.kill(p.pid, signal);
  } catch {
    // already gone
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ends a tree: the process group `pgid` (when given) and every process carrying `tag` (or a tag starting with
 * it, with `prefix`), found afresh before
 * each signal so children forked meanwhile are caught too. Returns once none is alive, or after the last
 * signal's grace period.
 */
export async function killTree(
  target: { tag: string; prefix?: boolean; pgid?: number | undefined; root?: ProcessIdentity | undefined },
  plan: KillPlan,
): Promise<KillReport> {
  const sent: NodeJS.Signals[] = [];
  const members = (): ProcessIdentity[] => {
    const byPid = new Map<number, ProcessIdentity>();
    if (target.root && isAlive(target.root)) byPid.set(target.root.pid, target.root);
    if (target.pgid !== undefined) for (const p of groupMembers(target.pgid)) byPid.set(p.pid, p);
    for (const p of findTagged(target.tag, { prefix: target.prefix ?? false })) byPid.set(p.pid, p);
    return [...byPid.values()];
  };
  let alive = members();
  for (const signal of plan.signals) {
    if (alive.length === 0) break;
    sent.push(signal);
    if (target.pgid !== undefined) {
      try {
        process.kill(-target.pgid, signal);
      } catch {
        // the group may be empty already; tagged stragglers are signalled one by one below
      }
    }
    for (const p of alive) signalIfSame(p, signal);
    const deadline = Date.now() + plan.graceMs;
    do {
      await sleep(Math.min(25, plan.graceMs));
      alive = members();
    } while (alive.length > 0 && Date.now() < deadline);
  }
  return { sent, survivors: alive.length };
}
