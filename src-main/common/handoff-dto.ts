import type { HandoffStatus } from './handoff-machine';
import type { TaskStatus } from './task-machine';

/** A pointer to something the work is about. Stored as given and never fetched by the runner. */
export interface ArtifactRef {
  uri: string;
  name?: string | undefined;
  mediaType?: string | undefined;
}

/** One outstanding question a working task asks (an elicitation for the person, in MCP's shape). */
export interface InputRequest {
  method: 'elicitation/create';
  params: { mode: 'form'; message: string; requestedSchema: Record<string, unknown> };
}

/** The answer to one input request, in the shape of an elicitation result. */
export interface InputAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown> | undefined;
  answeredBy: string;
  answeredAt: string;
}

export interface HandoffResult {
  text: string;
  artifacts: ArtifactRef[];
  completedBy: string;
  completedAt: string;
}

/** The execution record, with the MCP task fields (camelCase, as tasks/get will answer them). */
export interface TaskView {
  taskId: string;
  operation: string;
  owner: string;
  assignee: string | null;
  status: TaskStatus;
  statusMessage: string | null;
  createdAt: string;
  lastUpdatedAt: string;
  /** Milliseconds; null when the task is kept until removed on purpose. */
  ttl: number | null;
  pollInterval: number;
  correlationId: string;
  schemaVersion: number;
  /** Its records, as the task-log:// resource to read or subscribe to. */
  taskLog: string;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, InputRequest>;
}

export interface HandoffView {
  id: string;
  status: HandoffStatus;
  owner: string;
  /** The participant it was addressed to; null: anyone may accept it. */
  to: string | null;
  assignee: string | null;
  summary: string;
  constraints: string | null;
  artifacts: ArtifactRef[];
  /** Copied from the task on completion, so it outlives the task row. */
  result: HandoffResult | null;
  inputAnswers: Record<string, InputAnswer>;
  /** `comments`: lines of the diff the rejection points at (request changes); `reviewedHead`: the commit decided on. */
  decision: { approved: boolean; by: string; at: string; reason: string | null; comments?: LineComment[]; reviewedHead?: string } | null;
  cancellation: { by: string | null; at: string; reason: string | null } | null;
  taskId: string;
  /** The task as it is now; null once it was deleted one TTL after it ended. */
  task: TaskView | null;
  /** The git worktree the room made for the work (handoff_create with workspace); null without one. */
  workspace: WorkspaceView | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * Where a workspace stands: planned (the handoff is open; made when it is accepted), ready (the worktree is
 * there), merged (approved and merged into its base branch; the worktree removed), removed (the worktree was
 * removed with nothing left in it), kept (the work ended but the worktree or its branch holds work that is not
 * merged: kept, and `note` says what), missing (its folder is gone: deleted by hand).
 */
export const WORKSPACE_STATES = ['planned', 'ready', 'merged', 'removed', 'kept', 'missing'] as const;
export type WorkspaceState = (typeof WORKSPACE_STATES)[number];

export interface WorkspaceView {
  /** The repository's top folder. */
  repo: string;
  /** The base as asked for (a branch, tag or commit). */
  base: string;
  /** The branch approval may merge into: the base when it is a branch, else null (approve only). */
  baseBranch: string | null;
  /** The commit the work started from: the diff is against it. */
  baseCommit: string;
  /** The work's own branch: commonroom/<handoff id>. */
  branch: string;
  /** The worktree folder (beside the room file, never inside the repository's working tree); null until accepted. */
  path: string | null;
  state: WorkspaceState;
  note: string | null;
  /** Graph runs started in the worktree (tasks_run with handoffId). */
  runs: string[];
  /** The rejected handoff whose worktree this one goes on in, and why it was rejected; null otherwise. */
  continues: { handoffId: string; reason: string | null; comments?: LineComment[]; reviewedHead?: string | null } | null;
  /** What handoff_complete captured; the files and their patches are read with handoff_evidence. */
  evidence: EvidenceSummary | null;
  merge: { into: string; commit: string; fastForward: boolean; by: string; at: string } | null;
  /**
   * The room's host the worktree lives on (an SSH alias: docs/hosts.md), and the host's own clone of the
   * repository it is made in; absent: this machine. `path` is then a folder on that host; `repo` stays the
   * repository here, which the work is fetched into for review (refs/commonroom/…) and merged into.
   */
  host?: string;
  hostRepo?: string;
  /**
   * What programs in its worktree get so parallel copies do not collide (the agent started on it, shells opened
   * with its handoffId): PORT and COMMONROOM_PORT_BASE (a block of COMMONROOM_PORT_COUNT ports of its own), and
   * COMMONROOM_WORKTREE (its handoff's id).
   */
  env: Record<string, string>;
}

export interface EvidenceCommit {
  sha: string;
  author: string;
  at: string;
  subject: string;
}

export interface EvidenceRun {
  graphId: string;
  name: string | null;
  state: string;
  /** Its stages that failed (or timed out), each with the task-log:// URI of its log. */
  failed: { stageId: string; state: string; log: string }[];
}

/** The change and its evidence as handoff_complete found them, kept in the room (it outlives the worktree). */
export interface EvidenceSummary {
  capturedAt: string;
  /** The branch's commit at completion. */
  head: string;
  commits: EvidenceCommit[];
  /** Commits on the branch, when more than the ones listed. */
  commitCount: number;
  files: number;
  additions: number;
  deletions: number;
  binaryFiles: number;
  /** Some file's patch was cut (over the per-file or total cap): its counts are whole, its text is not. */
  patchesCut: boolean;
  /** Changes in the worktree that were not committed (not in the diff, not merged by approval). */
  uncommitted: { path: string; status: string }[];
  uncommittedCount: number;
  runs: EvidenceRun[];
}

export const EVIDENCE_FILE_STATUSES = ['added', 'modified', 'deleted', 'renamed', 'copied', 'type-changed'] as const;

/** One file of the diff: its counts (null for a binary file) and its patch as git wrote it (capped). */
export interface EvidenceFile {
  path: string;
  oldPath: string | null;
  status: (typeof EVIDENCE_FILE_STATUSES)[number];
  additions: number | null;
  deletions: number | null;
  binary: boolean;
  /** The unified diff of this file (null for a binary file, or when the total cap was reached before it). */
  patch: string | null;
  /** The patch shown is not the whole of it. */
  cut: boolean;
}

export interface EventView {
  id: number;
  at: string;
  kind: string;
  actor: string | null;
  subject: string | null;
  data: unknown;
}

/** A page of events after a cursor. `oldestRetainedId` tells a reader whether the ring dropped part of its gap. */
export interface EventPage {
  events: EventView[];
  /** Pass as `cursor` for the next page (always given: the feed grows; `more` says whether more is already there). */
  nextCursor: string;
  more: boolean;
  oldestRetainedId: number | null;
}

/**
 * What merging a waiting handoff's work into its base would do now (handoff_preview): worked out with `git
 * merge-tree` (no working tree touched), again whenever the base branch, the work or a neighbour moved.
 */
export interface MergePreview {
  checkedAt: string;
  /** The branch the work would merge into (null: the base is not a branch; nothing merges). */
  into: string | null;
  /** The base branch's commit now (the base commit when the base is not a branch). */
  baseTip: string;
  /** The work's commit checked: the reviewed one (the evidence's head), or the branch's while it is worked on. */
  head: string;
  /** Commits on the base branch since the work started that the work does not have. */
  behind: number;
  /** nothing: no commits to merge; fast-forward; clean: a merge commit without conflicts; conflicts: see `conflicts`. */
  merge: 'nothing' | 'fast-forward' | 'clean' | 'conflicts' | 'no-branch';
  /** The files a merge now would conflict in. */
  conflicts: string[];
  /** The runs that tested it (tested-by runs): passed (all), failed (a run did not finish well), missing (none ran). */
  checks: { state: 'passed' | 'failed' | 'missing'; failed: string[] };
  /** Other live worktrees on the same repository whose work touches the same lines: one of the two merges first. */
  overlaps: { handoffId: string; summary: string; status: string; files: string[]; mergeFirst: 'this' | 'that' }[];
}

/** A comment on one line of a handoff's diff, sent to the agent with a rejection ("request changes"). */
export interface LineComment {
  path: string;
  /** The line in the new file (side "new", the default) or in the old one (a removed line). */
  line: number;
  side?: 'new' | 'old' | undefined;
  text: string;
}
