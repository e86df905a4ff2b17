import type { EvidenceRun, MergePreview } from '../../common/handoff-dto';
import type { WorkspaceRecord } from '../store/workspaces';
import { git, gitProblem } from './git';
import { RoomError } from '../../common/errors';

/** Another live worktree on the same repository, as the preview compares it with this one. */
export interface Neighbour {
  handoffId: string;
  summary: string;
  status: string;
  /** Its work's commit: the reviewed one when it was completed, else what its branch holds now. */
  head: string;
  /** It waits for a decision (result_ready): the one to merge first when both touch the same lines. */
  ready: boolean;
  createdAt: string;
}

/** The commit a ref names now, or null (no such branch). */
export async function commitOf(repo: string, ref: string): Promise<string | null> {
  const out = await git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return out.status === 0 ? out.stdout.trim() || null : null;
}

/**
 * The files a merge of `a` and `b` would conflict in, from `git merge-tree --write-tree` (git's own merge, in its
 * object store only: no working tree, index or ref is touched; the repository's merge drivers are turned off by
 * the room's git). An empty list: it merges cleanly.
 */
export async function conflictsBetween(repo: string, a: string, b: string): Promise<string[]> {
  const out = await git(repo, ['merge-tree', '--write-tree', '--name-only', '--no-messages', a, b]);
  if (out.status === 0) return [];
  if (out.status === 1) return [...new Set(out.stdout.split('\n').slice(1).filter((l) => l !== ''))];
  throw new RoomError('CONFLICT', `git could not work out the merge of ${a.slice(0, 7)} and ${b.slice(0, 7)} in ${repo}: ${gitProblem(out)}`);
}

const isAncestor = async (repo: string, a: string, b: string): Promise<boolean> => (await git(repo, ['merge-base', '--is-ancestor', a, b])).status === 0;

/** The tested-by runs as a check: passed when every run completed, failed naming the others, missing when none ran. */
export function checksOf(runs: readonly EvidenceRun[]): MergePreview['checks'] {
  if (runs.length === 0) return { state: 'missing', failed: [] };
  const failed = runs.filter((r) => r.state !== 'completed' || r.failed.length > 0).map((r) => `${r.name ?? r.graphId}: ${r.failed.length > 0 ? `${r.failed.map((f) => f.stageId).join(', ')} failed` : r.state}`);
  return { state: failed.length > 0 ? 'failed' : 'passed', failed };
}

/**
 * What merging `head` (the work of `w`) into its base branch would do now: how far the base moved since the work
 * started, whether it merges (a fast-forward, a clean merge commit, or the conflicting files), the tested-by
 * runs, and the neighbours (other live worktrees on the repository) whose work conflicts with this one.
 */
export async function previewMerge(w: WorkspaceRecord, head: string, runs: readonly EvidenceRun[], neighbours: readonly Neighbour[], now: string, ready: boolean): Promise<MergePreview> {
  const baseTip = (w.baseBranch ? await commitOf(w.repo, `refs/heads/${w.baseBranch}`) : null) ?? w.baseCommit;
  const behindOut = await git(w.repo, ['rev-list', '--count', `${head}..${baseTip}`]);
  const behind = behindOut.status === 0 ? Number(behindOut.stdout.trim()) || 0 : 0;
  let merge: MergePreview['merge'];
  let conflicts: string[] = [];
  if (!w.baseBranch) merge = 'no-branch';
  else if (head === baseTip || (await isAncestor(w.repo, head, baseTip))) merge = 'nothing';
  else if (await isAncestor(w.repo, baseTip, head)) merge = 'fast-forward';
  else {
    conflicts = await conflictsBetween(w.repo, baseTip, head);
    merge = conflicts.length > 0 ? 'conflicts' : 'clean';
  }
  const overlaps: MergePreview['overlaps'] = [];
  for (const n of neighbours) {
    if (n.head === head || n.head === w.baseCommit || (await isAncestor(w.repo, n.head, head)) || (await isAncestor(w.repo, head, n.head))) continue;
    const files = await conflictsBetween(w.repo, head, n.head);
    if (files.length === 0) continue;
    // the one waiting for a decision goes first; of two waiting (or two working), the older handoff
    const thatFirst = n.ready !== ready ? n.ready : n.createdAt < w.createdAt || (n.createdAt === w.createdAt && n.handoffId < w.handoffId);
    overlaps.push({ handoffId: n.handoffId, summary: n.summary, status: n.status, files, mergeFirst: thatFirst ? 'that' : 'this' });
  }
  return { checkedAt: now, into: w.baseBranch, baseTip, head, behind, merge, conflicts, checks: checksOf(runs), overlaps };
}

/**
 * What a preview depends on, read cheaply (one `git for-each-ref`): the base branch's commit and each branch of
 * the room's worktrees. While it is the same, the preview made for it still holds (the re-check when the base
 * moves is this key changing).
 */
export async function refsNow(repo: string): Promise<Map<string, string>> {
  const out = await git(repo, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/']);
  const refs = new Map<string, string>();
  if (out.status !== 0) return refs;
  for (const line of out.stdout.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) refs.set(line.slice(0, space), line.slice(space + 1).trim());
  }
  return refs;
}
