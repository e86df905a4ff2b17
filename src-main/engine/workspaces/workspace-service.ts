import fs from 'node:fs';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { EvidenceFile, EvidenceRun, EvidenceSummary } from '../../common/handoff-dto';
import { taskLogUri } from '../../common/task-record';
import type { EngineContext } from '../feature';
import { GraphRepo } from '../store/graphs';
import type { HandoffRecord } from '../store/handoffs';
import { WorkspaceRepo, type WorkspaceRecord } from '../store/workspaces';
import { captureChange, PATCH_CAPS, type PatchCaps } from './evidence';
import { addWorktree, mergeBranch, planWorkspace, removeWorktree, worktreeFolder, type MergeOutcome, type WorkspacePlan } from './worktrees';

export const workspaceBranch = (handoffId: string) => `commonroom/${handoffId}`;

/** What one completion captured: the summary stored on the workspace and its files (stored apart, read in pages). */
export interface Captured {
  summary: EvidenceSummary;
  files: EvidenceFile[];
}

/**
 * A git worktree per handoff: planned when the handoff names a repository, made when it is accepted, its change
 * captured when it is completed, merged (or kept) when it is approved, removed when nothing in it would be lost.
 * Git work happens outside transactions (it is slow and not the room's); the rows it leads to are written by the
 * caller's commit (handoff-actions.ts), through `repo`.
 */
export class WorkspaceService {
  readonly repo: WorkspaceRepo;
  private readonly graphs: GraphRepo;

  constructor(
    private readonly ctx: EngineContext,
    private readonly caps: PatchCaps = PATCH_CAPS,
  ) {
    this.repo = new WorkspaceRepo(ctx.room.db);
    this.graphs = new GraphRepo(ctx.room.db);
  }

  plan(repoPath: string, base: string | undefined): Promise<WorkspacePlan> {
    return planWorkspace(repoPath, base);
  }

  folderFor(plan: WorkspacePlan, handoffId: string): string {
    const { room } = this.ctx;
    return worktreeFolder(plan, room.location.markdownPath, room.paths.dataDir, room.id, handoffId);
  }

  /** Makes the worktree of a planned workspace (before the accept is committed; `undo` if that fails). */
  async open(w: WorkspaceRecord): Promise<{ path: string; undo(): Promise<void> }> {
    const folder = this.folderFor(w, w.handoffId);
    await addWorktree(w, w.branch, folder);
    return { path: folder, undo: async () => void (await removeWorktree(w.repo, folder, w.branch, { keepBranch: false, baseCommit: w.baseCommit })) };
  }

  /** The change in a ready workspace and the graph runs started in it. */
  async capture(w: WorkspaceRecord): Promise<Captured> {
    if (!w.path || !fs.existsSync(w.path)) {
      throw new RoomError('CONFLICT', `the workspace of handoff ${w.handoffId} (${w.path ?? 'never made'}) is gone: its change cannot be captured. Cancel the handoff, or make the folder again with "git worktree add"`);
    }
    const change = await captureChange(w.path, w.baseCommit, this.caps);
    const totals = change.files.reduce(
      (t, f) => ({ additions: t.additions + (f.additions ?? 0), deletions: t.deletions + (f.deletions ?? 0), binary: t.binary + (f.binary ? 1 : 0), cut: t.cut || f.cut }),
      { additions: 0, deletions: 0, binary: 0, cut: false },
    );
    return {
      files: change.files,
      summary: {
        capturedAt: this.ctx.now(),
        head: change.head,
        commits: change.commits,
        commitCount: change.commitCount,
        files: change.files.length,
        additions: totals.additions,
        deletions: totals.deletions,
        binaryFiles: totals.binary,
        patchesCut: totals.cut,
        uncommitted: change.uncommitted,
        uncommittedCount: change.uncommittedCount,
        runs: this.runs(w.runs),
      },
    };
  }

  /** The graph runs started in a workspace, with their failed stages and where each one's log is. */
  runs(graphIds: readonly string[]): EvidenceRun[] {
    const out: EvidenceRun[] = [];
    for (const id of graphIds) {
      const g = this.graphs.graph(id);
      if (!g) continue;
      const failed = this.graphs
        .stages(id)
        .filter((s) => s.state === 'failed')
        .map((s) => ({ stageId: s.stageId, state: s.errorCode ? `${s.state} (${s.errorCode})` : s.state, log: taskLogUri(`${id}:${s.stageId}`) }));
      out.push({ graphId: id, name: g.name, state: g.state, failed });
    }
    return out;
  }

  merge(w: WorkspaceRecord, h: HandoffRecord): Promise<MergeOutcome> {
    if (!w.baseBranch) throw new RoomError('CONFLICT', `handoff ${h.id} started from ${w.base}, which is not a branch: there is nothing to merge into (approve without merge)`);
    const summary = h.summary.length > 72 ? `${h.summary.slice(0, 69)}…` : h.summary;
    return mergeBranch(w.repo, w.baseBranch, w.branch, `Merge ${w.branch}: ${summary}\n\nApproved in Commonroom (handoff ${h.id}).`);
  }

  /** Removes a finished workspace's worktree when nothing in it would be lost; says what was kept otherwise. */
  async tidy(w: WorkspaceRecord, options: { keepBranch: boolean; merged?: boolean }): Promise<{ removed: boolean; note: string | null }> {
    if (!w.path) return { removed: true, note: null };
    try {
      return await removeWorktree(w.repo, w.path, w.branch, { keepBranch: options.keepBranch, baseCommit: w.baseCommit, merged: options.merged ?? false });
    } catch (error) {
      return { removed: false, note: `kept: ${(error as Error).message}` };
    }
  }

  /** A workspace a caller may start a shell or graph in: the handoff's assignee (or its owner, or who can approve). */
  usable(caller: Caller, h: HandoffRecord): WorkspaceRecord & { path: string } {
    const w = this.repo.get(h.id);
    if (!w) throw new RoomError('INVALID_INPUT', `handoff ${h.id} has no workspace (it was created without workspace.repo): give cwd instead`);
    if (h.assignee !== caller.name && h.owner !== caller.name && !caller.capabilities.includes('approve')) {
      throw new RoomError('FORBIDDEN', `only handoff ${h.id}'s assignee (${h.assignee ?? 'nobody yet'}) works in its workspace`);
    }
    if (w.state === 'planned' || !w.path) throw new RoomError('CONFLICT', `handoff ${h.id}'s workspace is made when it is accepted: accept it first (handoff_accept)`);
    if (w.state !== 'ready' && w.state !== 'kept') throw new RoomError('CONFLICT', `handoff ${h.id}'s workspace is ${w.state}${w.note ? ` (${w.note})` : ''}: there is no worktree to work in`);
    if (!fs.existsSync(w.path)) throw new RoomError('CONFLICT', `handoff ${h.id}'s worktree ${w.path} is gone (deleted by hand?): make it again with "git worktree add", or cancel the handoff`);
    return { ...w, path: w.path };
  }

  /** At start: worktrees that should be on disk and are not are marked missing (reported, never fatal). */
  reconcile(): void {
    for (const w of this.repo.withWorktree()) {
      if (w.path && fs.existsSync(w.path)) continue;
      this.ctx.commit(() => {
        this.repo.update(w.handoffId, { state: 'missing', note: `its folder ${w.path ?? ''} was not found when the room started (deleted by hand?); the branch ${w.branch} may still hold the work` }, this.ctx.now());
        return { value: undefined, events: [{ kind: 'workspace.missing', actor: null, subject: w.handoffId, data: { path: w.path, branch: w.branch } }] };
      });
    }
  }
}
