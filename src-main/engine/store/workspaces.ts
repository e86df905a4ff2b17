import type Database from 'better-sqlite3';
import type { EvidenceFile, EvidenceSummary, WorkspaceState, WorkspaceView } from '../../common/handoff-dto';
import { worktreeEnv } from '../../common/worktree-env';

export interface WorkspaceRecord extends Omit<WorkspaceView, 'env'> {
  handoffId: string;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  handoff_id: string;
  repo: string;
  base: string;
  base_branch: string | null;
  base_commit: string;
  branch: string;
  path: string | null;
  state: WorkspaceState;
  note: string | null;
  runs: string;
  continues: string | null;
  evidence: string | null;
  merge: string | null;
  host: string | null;
  host_repo: string | null;
  created_at: string;
  updated_at: string;
}

interface FileRow {
  path: string;
  old_path: string | null;
  status: EvidenceFile['status'];
  additions: number | null;
  deletions: number | null;
  binary: number;
  patch: string | null;
  cut: number;
}

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

function toRecord(row: Row): WorkspaceRecord {
  return {
    handoffId: row.handoff_id,
    repo: row.repo,
    base: row.base,
    baseBranch: row.base_branch,
    baseCommit: row.base_commit,
    branch: row.branch,
    path: row.path,
    state: row.state,
    note: row.note,
    runs: JSON.parse(row.runs) as string[],
    continues: parse<WorkspaceView['continues']>(row.continues),
    evidence: parse<EvidenceSummary>(row.evidence),
    merge: parse<WorkspaceView['merge']>(row.merge),
    ...(row.host !== null ? { host: row.host, hostRepo: row.host_repo ?? '' } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A workspace as the doors show it (inside a handoff), with the values its worktree's programs get (common/worktree-env.ts). */
export function workspaceView(w: WorkspaceRecord): WorkspaceView {
  const { handoffId: _id, createdAt: _c, updatedAt: _u, ...view } = w;
  return { ...view, env: worktreeEnv(w.handoffId) };
}

export type NewWorkspace = Pick<WorkspaceRecord, 'handoffId' | 'repo' | 'base' | 'baseBranch' | 'baseCommit' | 'branch' | 'path' | 'state' | 'continues' | 'host' | 'hostRepo'> & { at: string };
export type WorkspaceChange = Partial<Pick<WorkspaceRecord, 'path' | 'state' | 'note' | 'runs' | 'evidence' | 'merge' | 'baseCommit'>>;

/** Workspace rows and their captured files. Callers own the transaction. */
export class WorkspaceRepo {
  constructor(private readonly db: Database.Database) {}

  insert(w: NewWorkspace): void {
    this.db
      .prepare(
        `INSERT INTO workspaces (handoff_id, repo, base, base_branch, base_commit, branch, path, state, continues, host, host_repo, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(w.handoffId, w.repo, w.base, w.baseBranch, w.baseCommit, w.branch, w.path, w.state, w.continues === null ? null : JSON.stringify(w.continues), w.host ?? null, w.host ? (w.hostRepo ?? null) : null, w.at, w.at);
  }

  get(handoffId: string): WorkspaceRecord | null {
    const row = this.db.prepare('SELECT * FROM workspaces WHERE handoff_id = ?').get(handoffId) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** Workspaces whose worktree should be on disk, here or on a host (for a restart to look for). */
  withWorktree(): WorkspaceRecord[] {
    return (this.db.prepare("SELECT * FROM workspaces WHERE state IN ('ready', 'kept') AND path IS NOT NULL").all() as Row[]).map(toRecord);
  }

  /** Every worktree folder a handoff has or had, with its handoff's status and assignee (who may still write there). */
  folders(): { path: string; status: string; assignee: string | null }[] {
    return this.db
      .prepare("SELECT w.path AS path, h.status AS status, h.assignee AS assignee FROM workspaces w JOIN handoffs h ON h.id = w.handoff_id WHERE w.path IS NOT NULL AND w.host IS NULL AND w.state IN ('ready', 'kept')")
      .all() as { path: string; status: string; assignee: string | null }[];
  }

  /** Workspaces of cancelled handoffs (by any door: handoff_cancel, tasks/cancel, the TTL) not tidied yet. */
  ofCancelled(): WorkspaceRecord[] {
    return (
      this.db.prepare("SELECT w.* FROM workspaces w JOIN handoffs h ON h.id = w.handoff_id WHERE h.status = 'cancelled' AND w.state IN ('planned', 'ready')").all() as Row[]
    ).map(toRecord);
  }

  update(handoffId: string, change: WorkspaceChange, at: string): void {
    const column: Record<keyof WorkspaceChange, string> = { path: 'path', state: 'state', note: 'note', runs: 'runs', evidence: 'evidence', merge: 'merge', baseCommit: 'base_commit' };
    const json = new Set<keyof WorkspaceChange>(['runs', 'evidence', 'merge']);
    const sets = ['updated_at = @at'];
    const params: Record<string, unknown> = { handoffId, at };
    for (const [key, value] of Object.entries(change) as [keyof WorkspaceChange, unknown][]) {
      if (value === undefined) continue;
      sets.push(`${column[key]} = @${key}`);
      params[key] = json.has(key) && value !== null ? JSON.stringify(value) : value;
    }
    this.db.prepare(`UPDATE workspaces SET ${sets.join(', ')} WHERE handoff_id = @handoffId`).run(params);
  }

  /** Replaces the captured files of a workspace (a second completion after a reject captures anew). */
  setFiles(handoffId: string, files: readonly EvidenceFile[]): void {
    this.db.prepare('DELETE FROM workspace_files WHERE handoff_id = ?').run(handoffId);
    const insert = this.db.prepare(
      'INSERT INTO workspace_files (handoff_id, ord, path, old_path, status, additions, deletions, binary, patch, cut) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    files.forEach((f, ord) => insert.run(handoffId, ord, f.path, f.oldPath, f.status, f.additions, f.deletions, f.binary ? 1 : 0, f.patch, f.cut ? 1 : 0));
  }

  /** Files from ordinal `from`, at most `limit`, with or without their patches. */
  files(handoffId: string, from: number, limit: number, patches: boolean): { ord: number; file: EvidenceFile }[] {
    const rows = this.db
      .prepare(`SELECT ord, path, old_path, status, additions, deletions, binary, ${patches ? 'patch' : 'NULL AS patch'}, cut FROM workspace_files WHERE handoff_id = ? AND ord >= ? ORDER BY ord LIMIT ?`)
      .all(handoffId, from, limit) as (FileRow & { ord: number })[];
    return rows.map((r) => ({
      ord: r.ord,
      file: { path: r.path, oldPath: r.old_path, status: r.status, additions: r.additions, deletions: r.deletions, binary: r.binary === 1, patch: r.patch, cut: r.cut === 1 },
    }));
  }
}

/** How far a recorded step got: recorded (nothing done yet), checkout (git is writing the checkout), ref (moving the branch). */
export type IntentPhase = 'recorded' | 'checkout' | 'ref';

/** A step on a person's repository, recorded before it starts (migration 011). */
export interface WorkspaceIntent {
  id: number;
  handoffId: string;
  kind: 'merge' | 'accept';
  repo: string;
  /** merge: the branch moved (refs/heads/<into>); accept: the work's branch made. */
  ref: string;
  /** merge: the checkout of `ref` updated (null: no checkout has it); accept: the worktree folder made. */
  worktree: string | null;
  /** merge: the commit `ref` moves to; accept: the base commit. */
  target: string;
  /** merge: the commit `ref` was at. */
  previous: string | null;
  paths: string[];
  phase: IntentPhase;
  phaseAt: string;
  data: Record<string, unknown>;
  createdAt: string;
}

interface IntentRow {
  id: number;
  handoff_id: string;
  kind: WorkspaceIntent['kind'];
  repo: string;
  ref: string;
  worktree: string | null;
  target: string;
  previous: string | null;
  paths: string;
  phase: IntentPhase;
  phase_at: string;
  data: string;
  created_at: string;
}

const toIntent = (r: IntentRow): WorkspaceIntent => ({
  id: r.id,
  handoffId: r.handoff_id,
  kind: r.kind,
  repo: r.repo,
  ref: r.ref,
  worktree: r.worktree,
  target: r.target,
  previous: r.previous,
  paths: JSON.parse(r.paths) as string[],
  phase: r.phase,
  phaseAt: r.phase_at,
  data: JSON.parse(r.data) as Record<string, unknown>,
  createdAt: r.created_at,
});

/** Recorded intents (workspace_intents): written before the room touches a repository, deleted with the step's rows. */
export class IntentRepo {
  constructor(private readonly db: Database.Database) {}

  insert(i: Omit<WorkspaceIntent, 'id' | 'phase' | 'phaseAt' | 'createdAt'>, at: string): number {
    const out = this.db
      .prepare('INSERT INTO workspace_intents (handoff_id, kind, repo, ref, worktree, target, previous, paths, phase, phase_at, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(i.handoffId, i.kind, i.repo, i.ref, i.worktree, i.target, i.previous, JSON.stringify(i.paths), 'recorded', at, JSON.stringify(i.data), at);
    return Number(out.lastInsertRowid);
  }

  phase(id: number, phase: IntentPhase, at: string): void {
    this.db.prepare('UPDATE workspace_intents SET phase = ?, phase_at = ? WHERE id = ?').run(phase, at, id);
  }

  delete(id: number): void {
    this.db.prepare('DELETE FROM workspace_intents WHERE id = ?').run(id);
  }

  all(): WorkspaceIntent[] {
    return (this.db.prepare('SELECT * FROM workspace_intents ORDER BY id').all() as IntentRow[]).map(toIntent);
  }

  of(handoffId: string, kind: WorkspaceIntent['kind']): WorkspaceIntent[] {
    return (this.db.prepare('SELECT * FROM workspace_intents WHERE handoff_id = ? AND kind = ? ORDER BY id').all(handoffId, kind) as IntentRow[]).map(toIntent);
  }
}
