import type { Capability } from './capabilities';

/** What every door returns for the room itself. */
export interface RoomInfo {
  room: { markdownPath: string; databasePath: string; id: string; createdAt: string };
  schemaVersion: number;
  runnerVersion: string;
  counts: { participants: number; events: number };
  /** Whether the runner can write right now: `degraded` lists what fails (a full disk) until it works again. */
  health: RunnerHealthView;
  /**
   * The OS sandbox agents' shells and graph stages run in: `kind` "bubblewrap" or "sandbox-exec" hides the
   * room's tokens, database, lock and logs from them; "none" means an agent with shells can act as you.
   */
  sandbox: { kind: 'bubblewrap' | 'sandbox-exec' | 'none'; message: string };
}

/** One thing the runner cannot do right now, and since when. */
export interface HealthProblem {
  /** `store`: changes to the room fail; `graphs`: stage changes wait to be applied (retried with backoff). */
  area: 'store' | 'graphs';
  /** A stable code (DISK_FULL, or the underlying error's code). */
  code: string;
  message: string;
  since: string;
  /** Failed tries since `since`. */
  failures: number;
}

export type RunnerHealthView = { state: 'ok' } | { state: 'degraded'; problems: HealthProblem[] };

export interface ParticipantView {
  name: string;
  role: 'operator' | 'agent';
  capabilities: Capability[];
  createdAt: string;
  revokedAt: string | null;
  /** Folders its shells and stages may write besides their working folder, temp and caches (the person's choice). */
  writableFolders: string[];
}

/** Returned once, when a participant is added: the plain token is never shown again. */
export interface ParticipantCreated {
  participant: ParticipantView;
  token: string;
}

/** Who is calling: resolved by a door from a bearer token (or the local file, for the CLI). */
export interface Caller {
  name: string;
  role: 'operator' | 'agent';
  capabilities: readonly Capability[];
}

/** The HTTP API header with which an operator token acts with a named participant's rights (`ce task --participant`). */
export const ACT_AS_HEADER = 'x-commonroom-participant';
