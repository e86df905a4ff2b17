/**
 * The port every process-tree backend implements: a table of the processes this user can see, read afresh on
 * each call, and a way to end some of them. The tree logic (which processes belong to a tree, when to
 * escalate) lives once in process-tree.ts on top of it; backends only read and signal.
 */

/** Every process the runner starts carries this in its environment; children inherit it. */
export const PROC_TAG_ENV = 'COMMONROOM_PROC_TAG';

export interface ProcessIdentity {
  pid: number;
  /**
   * When the process started, as the backend reads it (clock ticks since boot from /proc, `lstart` from ps,
   * FILETIME on Windows). With the pid, unique over time: a recycled pid has another start time.
   */
  startTime: string;
}

export interface ProcessRow extends ProcessIdentity {
  ppid: number;
  /** Process group; 0 where there are none (Windows). */
  pgid: number;
  /** Start time as a number that orders processes of one backend (a child never starts before its parent). */
  startOrder: number;
  /** Exited but not yet reaped: counts as gone. */
  zombie: boolean;
  /** The COMMONROOM_PROC_TAG value, or null when untagged or unreadable (another user's, or Windows). */
  tag: string | null;
}

export type BackendName = 'proc' | 'ps' | 'windows';

export interface ProcessBackend {
  readonly name: BackendName;
  /** How often a kill waits between looks at the table (a `ps` or PowerShell look costs a process). */
  readonly pollMs: number;
  /** Every visible process except the caller, in one look. */
  list(): ProcessRow[];
  /**
   * Only processes that can be descendants of `root` (started at `spawnedAtMs`, wall clock): cheaper than
   * `list()` where the backend can tell (Linux: pids handed out since the root's). Null when it cannot.
   */
  listNewerThan?(root: ProcessIdentity, spawnedAtMs: number): ProcessRow[] | null;
  /**
   * Only processes carrying a tag (their tag read first, the rest of the row only for those): cheaper than
   * `list()` where the backend can tell (Linux: one read per untagged process instead of two). Absent: `list()`.
   */
  listTagged?(): ProcessRow[];
  /** The same look without blocking the event loop (a kill looks many times while shells and HTTP go on). */
  listAsync(): Promise<ProcessRow[]>;
  /** One process (its tag may be left unread: callers want its state and start time), or null when it is gone. */
  get(pid: number): ProcessRow | null;
  /**
   * Sends `signal` to those of `targets` that are still the same process (start time read again right before,
   * or, where a read costs a process, taken from the look made right before), and to the group `pgid` when given. Never throws for a process that is already gone.
   */
  signal(targets: ProcessIdentity[], signal: NodeJS.Signals, pgid: number | undefined): void;
}

/** The value of `COMMONROOM_PROC_TAG=` in a list of `KEY=value` entries, or null. */
export function tagFromEntries(entries: Iterable<string>): string | null {
  const prefix = `${PROC_TAG_ENV}=`;
  for (const entry of entries) if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return null;
}
