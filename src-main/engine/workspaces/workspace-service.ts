import fs from 'node:fs';
import path from 'node:path';
import { isInside } from '../core/fs-safe';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { EvidenceFile, EvidenceRun, EvidenceSummary } from '../../common/handoff-dto';
import type { EngineContext } from '../room/index';
import type { HandoffRecord } from '../store/handoffs';
import { IntentRepo, WorkspaceRepo, type WorkspaceRecord } from '../store/workspaces';
import { PROC_TAG_ENV } from '../process/process-tree';
import { procTags } from '../core/ids';
import { inTheWay, nameFew, restorePaths } from './checkout';
import { captureChange, captureCommits, PATCH_CAPS, type CapturedChange, type PatchCaps } from './evidence';
import { fetchedRef, type HostWorkspacePort } from './host-port';
import { git, gitProblem } from './git';
import { RepoLocks } from './repo-lock';
import { addWorktree, planMerge, planWorkspace, removeWorktree, worktreeFolder, type MergePlan, type WorkspacePlan } from './worktrees';

export const workspaceBranch = (handoffId: string) => `commonroom/${handoffId}`;

/** What one completion captured: the summary stored on the workspace and its files (stored apart, read in pages). */
/** The tag of the git processes a recorded step runs (found and ended at start if a crash left them running). */
export const gitTag = (roomId: string, intentId: number) => `${procTags.roomPrefix(roomId)}git:${intentId}`;
export const gitTagPrefix = (roomId: string) => `${procTags.roomPrefix(roomId)}git:`;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** A graph run as a workspace's evidence lists it, read from its owner (graphs/, handed in by engine.ts). */
export type GraphRunReads = (graphId: string) => EvidenceRun | undefined;

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
  readonly intents: IntentRepo;
  readonly locks: RepoLocks;
  /** Worktrees on the room's hosts (engine/hosts, handed in by engine.ts); none: a workspace on a host is refused. */
  private hosts: HostWorkspacePort | undefined;
  /** `runOf`: the graph runs started in a workspace, read from graphs/ (the engine's service has it). */
  constructor(
    private readonly ctx: EngineContext,
    private readonly caps: PatchCaps = PATCH_CAPS,
    private readonly runOf: GraphRunReads = () => undefined,
  ) {
    this.repo = new WorkspaceRepo(ctx.room.db);
    this.intents = new IntentRepo(ctx.room.db);
    this.locks = new RepoLocks(ctx.room.paths.dataDir, ctx.room.location.markdownPath);
  }

  /** The hosts feature's side of worktrees on hosts (engine.ts hands it in once the links are built). */
  useHosts(port: HostWorkspacePort): void {
    this.hosts = port;
  }

  /** The port to a workspace's host, for a caller who may place work there. */
  hostPort(host: string, caller?: { role: string }): HostWorkspacePort {
    if (!this.hosts) throw new RoomError('UNAVAILABLE', `this room process places no work on hosts: make the worktree on this machine (without workspace.host)`);
    if (caller) this.hosts.allowed(caller, host);
    return this.hosts;
  }

  plan(repoPath: string, base: string | undefined): Promise<WorkspacePlan> {
    return planWorkspace(repoPath, base);
  }

  folderFor(plan: WorkspacePlan, handoffId: string): string {
    const { room } = this.ctx;
    return worktreeFolder(plan, room.location.markdownPath, room.paths.dataDir, room.id, handoffId);
  }

  /** The environment of a recorded step's git: tagged, so a crash's leftover git is found at start. */
  gitEnv(intentId: number): Record<string, string> {
    return { [PROC_TAG_ENV]: gitTag(this.ctx.room.id, intentId) };
  }

  /** Makes the worktree of a planned workspace (before the accept is committed; `undo` if that fails). */
  async open(w: WorkspaceRecord, env: Record<string, string> = {}): Promise<{ path: string; undo(): Promise<void> }> {
    if (w.host) {
      // on the host: its node makes it in the host's clone (asked again, it answers with the one it made)
      const host = w.host;
      const port = this.hostPort(host);
      const work = { hostRepo: w.hostRepo ?? '', handoffId: w.handoffId, branch: w.branch, baseCommit: w.baseCommit };
      const made = await port.add(host, work);
      return { path: made, undo: async () => void (await port.remove(host, { ...work, keepBranch: false, mergedHead: null }).catch(() => undefined)) };
    }
    const folder = this.folderFor(w, w.handoffId);
    await addWorktree(w, w.branch, folder, env);
    return { path: folder, undo: async () => void (await removeWorktree(w.repo, folder, w.branch, { keepBranch: false, baseCommit: w.baseCommit })) };
  }

  /** The change in a ready workspace and the graph runs started in it. */
  async capture(w: WorkspaceRecord): Promise<Captured> {
    if (w.host) return this.summarize(w, await this.fetchChange(w));
    if (!w.path || !fs.existsSync(w.path)) {
      throw new RoomError('CONFLICT', `the workspace of handoff ${w.handoffId} (${w.path ?? 'never made'}) is gone: its change cannot be captured. Cancel the handoff, or make the folder again with "git worktree add"`);
    }
    return this.summarize(w, await captureChange(w.path, w.baseCommit, this.caps));
  }

  /**
   * A host's work brought here: its branch fetched from the host's clone into the room's own ref in the
   * person's repository (refs/commonroom/fetched/<handoff>), read from there; what is not committed there is
   * listed by the host's node (it is not part of the change, as here).
   */
  private async fetchChange(w: WorkspaceRecord): Promise<CapturedChange> {
    const host = w.host as string;
    const port = this.hostPort(host);
    const hostRepo = w.hostRepo ?? '';
    const head = await port.fetch(host, { hostRepo, branch: w.branch, repo: w.repo, ref: fetchedRef(w.handoffId) });
    const uncommitted = await port.uncommitted(host, { hostRepo, handoffId: w.handoffId });
    return captureCommits(w.repo, w.baseCommit, head, uncommitted, this.caps);
  }

  private summarize(w: WorkspaceRecord, change: CapturedChange): Captured {
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
    return graphIds.map((id) => this.runOf(id)).filter((run): run is EvidenceRun => run !== undefined);
  }

  /**
   * Merges the reviewed commit (the evidence's head) into the base branch, under the repository's lock. Before
   * the person's repository is touched: the plan (planMerge refuses a moved branch, a conflict), the person's
   * checkout looked at (an uncommitted or ignored file where the merge writes, or their own change to a file it
   * changes, is a refusal naming them), and the intent recorded. Then the checkout is updated in steps a
   * restart can finish or undo exactly: `git read-tree -m -u <tip> <target>` (only the merge's paths), then the
   * branch moved with `git update-ref <target> <tip>`. A failure puts the recorded paths back and refuses. The
   * caller commits the decision and deletes the intent (`intentId`) in one transaction, still under the lock.
   */
  async merge(w: WorkspaceRecord, h: HandoffRecord, meta: { by: string; reason: string | null }): Promise<{ plan: MergePlan; intentId: number }> {
    if (!w.baseBranch) throw new RoomError('CONFLICT', `handoff ${h.id} started from ${w.base}, which is not a branch: there is nothing to merge into (approve without merge)`);
    if (!w.evidence) throw new RoomError('CONFLICT', `handoff ${h.id}'s change was never captured: there is no reviewed commit to merge (approve without merge)`);
    const summary = h.summary.length > 72 ? `${h.summary.slice(0, 69)}…` : h.summary;
    const message = `Merge ${w.branch}: ${summary}\n\nApproved in Commonroom (handoff ${h.id}).`;
    // a host's work is merged from the room's ref it was fetched into (it moves only when the work is captured)
    const plan = await planMerge(w.repo, w.baseBranch, w.branch, w.evidence.head, message, w.host ? fetchedRef(w.handoffId) : undefined);
    const checkout = plan.worktree;
    if (checkout) {
      await git(checkout, ['update-index', '-q', '--refresh']);
      const way = await inTheWay(checkout, plan.paths);
      if (way.untracked.length > 0) {
        throw new RoomError(
          'CONFLICT',
          `merging ${plan.head.slice(0, 7)} into ${plan.into} would overwrite ${plural(way.untracked.length, 'file')} in your checkout ${checkout} that git does not track: ${await nameFew(checkout, way.untracked)}. Nothing was changed: these files are yours; move or rename them (the merge adds files of the same names), then approve again`,
          { inTheWay: way.untracked.slice(0, 20) },
        );
      }
      if (way.changed.length > 0) {
        throw new RoomError(
          'CONFLICT',
          `merging ${plan.head.slice(0, 7)} into ${plan.into} changes ${plural(way.changed.length, 'file')} you have uncommitted changes to in ${checkout}: ${await nameFew(checkout, way.changed)}. Nothing was changed: your own changes are yours to keep; finish or set them aside yourself, then approve again`,
          { inTheWay: way.changed.slice(0, 20) },
        );
      }
    }
    const intentId = this.ctx.commit(() => ({
      value: this.intents.insert(
        { handoffId: h.id, kind: 'merge', repo: w.repo, ref: `refs/heads/${plan.into}`, worktree: checkout, target: plan.target, previous: plan.tip, paths: plan.paths.map((p) => p.path), data: { head: plan.head, fastForward: plan.fastForward, by: meta.by, reason: meta.reason } },
        this.ctx.now(),
      ),
      events: [],
    }));
    const env = this.gitEnv(intentId);
    const phase = (p: 'checkout' | 'ref') => this.ctx.commit(() => ({ value: this.intents.phase(intentId, p, this.ctx.now()), events: [] }));
    const undo = async (problem: string): Promise<never> => {
      if (checkout) await restorePaths(checkout, plan.tip, plan.paths.map((p) => p.path), env);
      this.ctx.commit(() => ({ value: this.intents.delete(intentId), events: [] }));
      throw new RoomError('CONFLICT', problem);
    };
    if (checkout) {
      phase('checkout');
      const out = await git(checkout, ['read-tree', '-m', '-u', plan.tip, plan.target], { env, timeoutMs: 600_000 });
      if (out.status !== 0) {
        const locked = /index\.lock/.test(out.stderr);
        await undo(
          locked
            ? `another git is working in your checkout ${checkout} (its index is locked): nothing was changed; approve again once it finished`
            : `${plan.into} is checked out in ${checkout}, and git could not update it there (${gitProblem(out)}). Nothing was changed (the files the merge had written were put back): your own changes in that checkout are yours to keep; approve again once nothing of yours is in the way`,
        );
      }
    }
    phase('ref');
    const moved = await git(w.repo, ['update-ref', '-m', `commonroom: ${message.split('\n')[0] ?? ''}`, `refs/heads/${plan.into}`, plan.target, plan.tip], { env });
    if (moved.status !== 0) await undo(`${plan.into} moved while merging (${gitProblem(moved)}): nothing was merged${checkout ? ' and the files written were put back' : ''}; approve again`);
    return { plan, intentId };
  }

  /**
   * Whether `owner`'s processes may write in `cwd`: false inside a handoff's worktree unless that handoff is
   * accepted and in progress with `owner` as its assignee (completing ends the assignee's write access: the
   * evidence is what was reviewed); true elsewhere (other rules decide there). For the sandbox.
   */
  workFolderWritable(owner: string, cwd: string): boolean {
    const at = path.resolve(cwd);
    const holding = this.repo.folders().filter((f) => isInside(f.path, at));
    if (holding.length === 0) return true;
    return holding.some((f) => f.status === 'accepted' && f.assignee === owner);
  }

  /** Removes a finished workspace's worktree when nothing in it would be lost; says what was kept otherwise. */
  async tidy(w: WorkspaceRecord, options: { keepBranch: boolean; merged?: boolean }): Promise<{ removed: boolean; note: string | null }> {
    if (!w.path) return { removed: true, note: null };
    if (w.host) return this.tidyOnHost(w, options);
    try {
      return await removeWorktree(w.repo, w.path, w.branch, { keepBranch: options.keepBranch, baseCommit: w.baseCommit, merged: options.merged ?? false });
    } catch (error) {
      return { removed: false, note: `kept: ${(error as Error).message}` };
    }
  }

  /**
   * A host's worktree removed there by its node (when nothing in it would be lost); once merged, the room's
   * fetched ref here goes too (the base branch holds the commit). A host that cannot be reached keeps it, said.
   */
  private async tidyOnHost(w: WorkspaceRecord, options: { keepBranch: boolean; merged?: boolean }): Promise<{ removed: boolean; note: string | null }> {
    const host = w.host as string;
    if (options.merged) await git(w.repo, ['update-ref', '-d', fetchedRef(w.handoffId)]);
    try {
      const mergedHead = options.merged ? (w.evidence?.head ?? null) : null;
      const out = await this.hostPort(host).remove(host, { hostRepo: w.hostRepo ?? '', handoffId: w.handoffId, branch: w.branch, baseCommit: w.baseCommit, keepBranch: options.keepBranch, mergedHead });
      return { removed: out.removed, note: out.note === null ? null : `on ${host}: ${out.note}` };
    } catch (error) {
      return { removed: false, note: `kept on ${host}: ${(error as Error).message}` };
    }
  }

  /** A workspace a caller may start a shell or graph in: the handoff's assignee (or its owner, or who can approve). */
  usable(caller: Caller, h: HandoffRecord): WorkspaceRecord & { path: string } {
    const w = this.repo.get(h.id);
    if (!w) throw new RoomError('INVALID_INPUT', `handoff ${h.id} has no workspace (it was created without workspace.repo): give cwd instead`);
    if (h.assignee !== caller.name && h.owner !== caller.name && !caller.capabilities.includes('approve')) {
      throw new RoomError('FORBIDDEN', `only handoff ${h.id}'s assignee (${h.assignee ?? 'nobody yet'}) works in its workspace`);
    }
    if (h.assignee === caller.name && h.owner !== caller.name && !caller.capabilities.includes('approve') && h.status !== 'accepted') {
      throw new RoomError('FORBIDDEN', `handoff ${h.id} is ${h.status}: its assignee's work in the worktree ended when it was completed (the evidence is what is reviewed)`);
    }
    if (w.state === 'planned' || !w.path) throw new RoomError('CONFLICT', `handoff ${h.id}'s workspace is made when it is accepted: accept it first (handoff_accept)`);
    if (w.state !== 'ready' && w.state !== 'kept') throw new RoomError('CONFLICT', `handoff ${h.id}'s workspace is ${w.state}${w.note ? ` (${w.note})` : ''}: there is no worktree to work in`);
    if (!w.host && !fs.existsSync(w.path)) throw new RoomError('CONFLICT', `handoff ${h.id}'s worktree ${w.path} is gone (deleted by hand?): make it again with "git worktree add", or cancel the handoff`);
    return { ...w, path: w.path };
  }

  /** At start: worktrees that should be on disk and are not are marked missing (reported, never fatal). */
  reconcile(): void {
    for (const w of this.repo.withWorktree()) {
      // a worktree on a host is its node's to keep: not looked for here
      if (w.host || (w.path && fs.existsSync(w.path))) continue;
      this.ctx.commit(() => {
        this.repo.update(w.handoffId, { state: 'missing', note: `its folder ${w.path ?? ''} was not found when the room started (deleted by hand?); the branch ${w.branch} may still hold the work` }, this.ctx.now());
        return { value: undefined, events: [{ kind: 'workspace.missing', actor: null, subject: w.handoffId, data: { path: w.path, branch: w.branch } }] };
      });
    }
  }
}

/** The sandbox's hook (see WorkspaceService.workFolderWritable): whether `owner`'s processes may write in `cwd`. */
export function workFolderWritable(ctx: EngineContext, owner: string, cwd: string): boolean {
  return new WorkspaceService(ctx).workFolderWritable(owner, cwd);
}
