import { hasProcFs, procBackend } from './proc-backend';
import { PROC_TAG_ENV, type BackendName, type ProcessBackend, type ProcessIdentity } from './process-table';
import { psBackend } from './ps-backend';
import { tagMatches, treeMembers, type KnownMember, type TreeTarget } from './tree-members';
import { windowsBackend } from './windows-backend';

/**
 * Finding and ending whole process trees, including descendants that left the process group (setsid,
 * nohup, double fork). Every process the runner starts carries COMMONROOM_PROC_TAG in its environment,
 * which children inherit. Before any signal, the pid's start time is checked against what was seen when it
 * was found, so a recycled pid is never signalled.
 *
 * Three backends behind one port (process-table.ts): Linux reads /proc, macOS reads `ps` (which also works
 * on Linux: COMMONROOM_PROCESS_BACKEND=ps), Windows reads Win32_Process through PowerShell and ends trees
 * with taskkill (no tags there: trees are found from their recorded root by parent links).
 */
export { PROC_TAG_ENV, type ProcessIdentity } from './process-table';

export const PROCESS_BACKEND_ENV = 'COMMONROOM_PROCESS_BACKEND';

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

export interface TaggedProcess extends ProcessIdentity {
  tag: string;
}

/**
 * Which backend serves `platform`: COMMONROOM_PROCESS_BACKEND when set (proc or ps, where they work),
 * else /proc on Linux, ps on macOS and other POSIX systems, Windows on win32.
 */
export function chooseBackend(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, procFs: boolean): BackendName {
  const wanted = env[PROCESS_BACKEND_ENV];
  if (platform === 'win32') {
    if (wanted && wanted !== 'windows') throw new Error(`${PROCESS_BACKEND_ENV}=${wanted} does not work on Windows: unset it`);
    return 'windows';
  }
  if (wanted === 'ps') return 'ps';
  if (wanted === 'proc') {
    if (!procFs) throw new Error(`${PROCESS_BACKEND_ENV}=proc needs /proc (Linux): unset it or use ps`);
    return 'proc';
  }
  if (wanted) throw new Error(`${PROCESS_BACKEND_ENV} must be proc or ps here, not ${JSON.stringify(wanted)}`);
  return procFs ? 'proc' : 'ps';
}

const BACKENDS: Record<BackendName, ProcessBackend> = { proc: procBackend, ps: psBackend, windows: windowsBackend };

let chosen: { wanted: string | undefined; backend: ProcessBackend } | undefined;

/**
 * The backend in use. Its variable is read on each call, so tests can switch it per file; the choice is made
 * again only when that value changed (a stage's start and end each ask several times).
 */
export function processBackend(): ProcessBackend {
  const wanted = process.env[PROCESS_BACKEND_ENV];
  if (chosen === undefined || chosen.wanted !== wanted) {
    chosen = { wanted, backend: BACKENDS[chooseBackend(process.platform, { [PROCESS_BACKEND_ENV]: wanted }, hasProcFs())] };
  }
  return chosen.backend;
}

/** The environment entry that tags a process: `COMMONROOM_PROC_TAG=<tag>`. */
export function tagEnv(env: NodeJS.ProcessEnv, tag: string): NodeJS.ProcessEnv {
  return { ...env, [PROC_TAG_ENV]: tag };
}

export function processStartTime(pid: number): string | null {
  return processBackend().get(pid)?.startTime ?? null;
}

/** Alive and not a zombie, and (when given) still the same process it was. The only liveness check there is. */
export function isAlive(p: number | ProcessIdentity): boolean {
  const row = processBackend().get(typeof p === 'number' ? p : p.pid);
  if (!row || row.zombie) return false;
  return typeof p === 'number' || row.startTime === p.startTime;
}

/** Live processes whose tag equals `tag`, or starts with it when `prefix` is true (none on Windows: no tags). */
export function findTagged(tag: string, options: { prefix?: boolean } = {}): TaggedProcess[] {
  const found: TaggedProcess[] = [];
  const backend = processBackend();
  for (const r of backend.listTagged?.() ?? backend.list()) {
    if (!r.zombie && r.tag !== null && tagMatches(r.tag, tag, options.prefix ?? false)) found.push({ pid: r.pid, startTime: r.startTime, tag: r.tag });
  }
  return found;
}

/**
 * What is left of an attempt after its main process `root` exited: live processes carrying `tag`. Looks only
 * at processes started since the root where the backend can tell (a /proc scan of every process took ~25 ms
 * per stage exit on a busy machine); else at every process.
 */
export function findLeftovers(tag: string, root: ProcessIdentity | undefined, spawnedAtMs: number): TaggedProcess[] {
  const backend = processBackend();
  const rows = (root && backend.listNewerThan?.(root, spawnedAtMs)) ?? backend.list();
  const found: TaggedProcess[] = [];
  for (const r of rows) if (!r.zombie && r.tag === tag) found.push({ pid: r.pid, startTime: r.startTime, tag: r.tag });
  return found;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ends a tree: the process group `pgid` (when given), the root (when still the same process), every process
 * carrying `tag` (or a tag starting with it, with `prefix`) and their descendants, found afresh before each
 * signal so children forked meanwhile are caught too. Returns once none is alive, or after the last signal's
 * grace period.
 */
export async function killTree(target: TreeTarget, plan: KillPlan): Promise<KillReport> {
  const backend = processBackend();
  const sent: NodeJS.Signals[] = [];
  const known = new Map<number, KnownMember>();
  const look = async () => {
    const found = treeMembers(await backend.listAsync(), target, [...known.values()]);
    for (const m of found) known.set(m.pid, { pid: m.pid, startOrder: m.startOrder });
    return found;
  };
  let alive = await look();
  for (const signal of plan.signals) {
    if (alive.length === 0) break;
    sent.push(signal);
    backend.signal(alive, signal, target.pgid);
    const deadline = Date.now() + plan.graceMs;
    do {
      await sleep(Math.min(backend.pollMs, plan.graceMs));
      alive = await look();
    } while (alive.length > 0 && Date.now() < deadline);
  }
  return { sent, survivors: alive.length };
}
