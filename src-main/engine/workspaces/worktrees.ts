import fs from 'node:fs';
import path from 'node:path';
import { RoomError } from '../../common/errors';
import { isInside } from '../core/fs-safe';
import { changedPaths, type MergePath } from './checkout';
import { git, gitOk, gitProblem, gitRead, identity } from './git';
import { worktreeBesideRoom, worktreeInDataDir } from '../core/room-paths';

/** The repository and base a handoff's workspace starts from, as resolved when the handoff is created. */
export interface WorkspacePlan {
  repo: string;
  base: string;
  baseBranch: string | null;
  baseCommit: string;
}

/** A branch, tag or commit, with git's ancestry suffixes (HEAD~1, main^2): no spaces, no `:path` forms, no globs. */
const REF = /^[^\s:?*[\\]+$/;
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Resolves what handoff_create names: `repoPath` must be an absolute path inside a git repository with at least
 * one commit, and `base` (default: the branch checked out there) must name a commit. Refusals say what to do
 * (and never show a path the room made up: a relative one would be the runner's folder).
 */
export async function planWorkspace(repoPath: string, base: string | undefined): Promise<WorkspacePlan> {
  if (CONTROL.test(repoPath)) throw new RoomError('INVALID_INPUT', `workspace.repo ${JSON.stringify(repoPath)} holds a control character: give the repository's path as it is on disk`);
  if (!path.isAbsolute(repoPath)) {
    const home = repoPath === '~' || repoPath.startsWith('~/') ? ' ("~" is not expanded: write the home folder out)' : '';
    throw new RoomError('INVALID_INPUT', `workspace.repo ${JSON.stringify(repoPath)} is a relative path: give the repository's absolute path${home}`);
  }
  if (base !== undefined && CONTROL.test(base)) throw new RoomError('INVALID_INPUT', `workspace.base ${JSON.stringify(base)} holds a control character: give a branch (e.g. main), a tag or a commit`);
  const where = path.resolve(repoPath);
  let isDir = false;
  try {
    isDir = fs.statSync(where).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new RoomError('INVALID_INPUT', `workspace.repo ${where} is not a folder on this machine: give the path of a git repository`);
  // one git for the repository's top, whether it is bare, its HEAD commit and the branch checked out (git()
  // refuses a working tree moved by config first); each line printed before a failure is still printed
  const asked = await git(where, ['rev-parse', '--show-toplevel', '--is-bare-repository', 'HEAD^{commit}', '--symbolic-full-name', 'HEAD', '--']);
  const [top, bare, head, symbolic] = asked.stdout.split('\n').map((l) => l.trim());
  if (!top) throw new RoomError('INVALID_INPUT', `workspace.repo ${where} is not in a git repository (${gitProblem(asked)}): run "git init" there, or give another folder`);
  const repo = top;
  if (bare === 'true') throw new RoomError('INVALID_INPUT', `workspace.repo ${repo} is a bare repository: give a repository with a working tree`);
  if (asked.status !== 0 || !head || !/^[0-9a-f]{40,64}$/.test(head)) throw new RoomError('INVALID_INPUT', `the repository ${repo} has no commits yet: commit something first, so the work has a base`);
  const branch = symbolic?.startsWith('refs/heads/') ? symbolic.slice('refs/heads/'.length) : null;
  const wanted = base ?? branch ?? head;
  if (!REF.test(wanted) || wanted.startsWith('-')) throw new RoomError('INVALID_INPUT', `workspace.base ${JSON.stringify(wanted)} is not a branch, tag or commit name (such as main, v1.2, HEAD~1 or a commit id)`);
  // the branch checked out is HEAD's commit; another base is resolved (reads of refs: no driver can run)
  if (base === undefined) return { repo, base: wanted, baseBranch: branch, baseCommit: head };
  const [commit, ref] = await Promise.all([
    gitRead(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${wanted}^{commit}`]),
    gitRead(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${wanted}`]),
  ]);
  if (commit.status !== 0) throw new RoomError('INVALID_INPUT', `workspace.base "${wanted}" does not name a commit in ${repo}: give a branch (e.g. main), a tag or a commit`);
  const isBranch = ref.status === 0;
  return { repo, base: wanted, baseBranch: isBranch ? wanted : null, baseCommit: commit.stdout.trim() };
}

/**
 * Where a handoff's worktree goes: beside the room file (`<room>.worktrees/<handoff id>`), or, when that is
 * inside the repository's working tree (a room file kept in the repository), in the runner's data folder.
 */
export function worktreeFolder(plan: WorkspacePlan, markdownPath: string, dataDir: string, roomId: string, handoffId: string): string {
  const beside = worktreeBesideRoom(markdownPath, handoffId);
  if (!isInside(plan.repo, beside)) return beside;
  return worktreeInDataDir(dataDir, roomId, handoffId);
}

/**
 * Whether `branch` may exist in `repo`, read from its own `.git` folder without running git: false only when
 * that folder (files refs, not a linked worktree's) holds neither a loose ref of that name nor a packed one.
 * An accept asks git about the branch only then (a new handoff's branch is not there: one git process less).
 */
export function branchMayExist(repo: string, branch: string): boolean {
  const dotGit = path.join(repo, '.git');
  try {
    if (!fs.lstatSync(dotGit).isDirectory() || ['commondir', 'reftable', path.join('refs', 'heads', branch)].some((p) => fs.existsSync(path.join(dotGit, p)))) return true;
  } catch {
    return true;
  }
  try {
    return fs.readFileSync(path.join(dotGit, 'packed-refs'), 'utf8').includes(` refs/heads/${branch}\n`);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** Makes the worktree on its new branch at the base commit. */
export async function addWorktree(plan: WorkspacePlan, branch: string, folder: string, env: Record<string, string> = {}): Promise<void> {
  if (fs.existsSync(folder)) throw new RoomError('CONFLICT', `the workspace folder ${folder} already exists: remove it, or continue the handoff that made it`);
  fs.mkdirSync(path.dirname(folder), { recursive: true, mode: 0o700 });
  const out = await git(plan.repo, ['worktree', 'add', '--quiet', '-b', branch, '--', folder, plan.baseCommit], { env, timeoutMs: 600_000 });
  if (out.status === 0) return;
  if (/already exists/.test(out.stderr) && !fs.existsSync(folder)) {
    throw new RoomError('CONFLICT', `the repository ${plan.repo} already has a branch ${branch}: rename or delete it, then accept again`);
  }
  throw new RoomError('CONFLICT', `making the worktree ${folder}: ${gitProblem(out)}`);
}

/** What is in a worktree that approval would not carry: uncommitted changes, and commits past the base. */
export async function worktreeHolds(folder: string, baseCommit: string): Promise<{ exists: boolean; dirty: number; commits: number }> {
  if (!fs.existsSync(folder)) return { exists: false, dirty: 0, commits: 0 };
  const status = await git(folder, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  const dirty = status.status === 0 ? status.stdout.split('\0').filter((e) => /^.. /.test(e)).length : 0;
  const count = await git(folder, ['rev-list', '--count', `${baseCommit}..HEAD`]);
  return { exists: true, dirty, commits: count.status === 0 ? Number(count.stdout.trim()) : 0 };
}

/**
 * Removes a worktree that holds nothing (its branch too, unless `keepBranch`); one that holds uncommitted
 * changes is left, and the answer says so. A folder deleted by hand is pruned from git's list.
 */
export async function removeWorktree(repo: string, folder: string, branch: string, options: { keepBranch: boolean; baseCommit: string; merged?: boolean }): Promise<{ removed: boolean; note: string | null }> {
  const holds = await worktreeHolds(folder, options.baseCommit);
  if (holds.exists && holds.dirty > 0) {
    return { removed: false, note: `kept: ${holds.dirty} uncommitted change${holds.dirty === 1 ? '' : 's'} in ${folder} (commit them on ${branch} or remove the folder yourself)` };
  }
  if (holds.exists) {
    const out = await git(repo, ['worktree', 'remove', '--', folder]);
    if (out.status !== 0) return { removed: false, note: `kept: git could not remove ${folder} (${gitProblem(out)})` };
  } else {
    await git(repo, ['worktree', 'prune']);
  }
  if (options.keepBranch || (holds.commits > 0 && !options.merged)) {
    return { removed: true, note: holds.commits > 0 && !options.keepBranch ? `${holds.commits === 1 ? 'its commit stays' : `its ${holds.commits} commits stay`} on branch ${branch}` : null };
  }
  await git(repo, ['branch', '-D', '--', branch]);
  return { removed: true, note: null };
}

/** Worktrees of `repo` by the branch checked out in them. */
async function checkedOut(repo: string): Promise<Map<string, string>> {
  const out = await gitOk(repo, ['worktree', 'list', '--porcelain', '-z']);
  const map = new Map<string, string>();
  let at: string | null = null;
  for (const field of out.split('\0')) {
    if (field.startsWith('worktree ')) at = field.slice('worktree '.length);
    else if (field.startsWith('branch refs/heads/') && at) map.set(field.slice('branch refs/heads/'.length), at);
  }
  return map;
}

/** A merge worked out but not applied: `ref` moves from `tip` to `target`; `worktree` (when one has it checked out) gets `paths`. */
export interface MergePlan {
  into: string;
  tip: string;
  /** The reviewed commit: the evidence's head. */
  head: string;
  target: string;
  fastForward: boolean;
  worktree: string | null;
  paths: MergePath[];
}

const short = (sha: string) => sha.slice(0, 7);

/**
 * Works out the merge of the reviewed commit `head` (never the branch's name: what the branch holds now may be
 * more than was reviewed) into `into`: a fast-forward when the base has not moved, else a merge commit made
 * without touching any working tree (git merge-tree), whose message names the handoff. Nothing but git's object
 * store is written. Refuses, changing nothing, when the work's branch moved since the review (saying to
 * re-capture), when there is nothing to merge, or on a conflict (naming the files). `ref`: where the work's
 * branch is read (a host's work: the room's ref it was fetched into).
 */
export async function planMerge(repo: string, into: string, branch: string, head: string, message: string, ref = `refs/heads/${branch}`): Promise<MergePlan> {
  const tip = (await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${into}^{commit}`])).stdout.trim();
  if (!tip) throw new RoomError('CONFLICT', `the base branch ${into} no longer exists in ${repo}: approve without merging, or recreate it`);
  const now = (await git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).stdout.trim();
  if (!now) throw new RoomError('CONFLICT', `the work's branch ${branch} is gone from ${repo}: nothing to merge (approve without merging)`);
  if (now !== head) {
    const after = (await git(repo, ['rev-list', '--count', `${head}..${now}`])).stdout.trim();
    throw new RoomError(
      'CONFLICT',
      `the work's branch ${branch} moved after the work was completed: the review showed ${short(head)}, the branch is now at ${short(now)}${after && after !== '0' ? ` (${after} commit${after === '1' ? '' : 's'} nobody reviewed)` : ''}. Nothing was merged: re-capture the evidence (handoff_recapture) to review what it holds now, then approve again`,
      { moved: { reviewed: head, now } },
    );
  }
  if ((await git(repo, ['merge-base', '--is-ancestor', head, tip])).status === 0) {
    throw new RoomError('CONFLICT', `${into} already has the reviewed commit ${short(head)}: nothing to merge (approve without merging)`);
  }
  const fastForward = (await git(repo, ['merge-base', '--is-ancestor', tip, head])).status === 0;
  let target = head;
  if (!fastForward) {
    const tree = await git(repo, ['merge-tree', '--write-tree', '--name-only', '--no-messages', tip, head]);
    if (tree.status === 1) {
      const files = tree.stdout.split('\n').slice(1).filter((l) => l !== '');
      throw new RoomError('CONFLICT', `merging ${short(head)} (${branch}) into ${into} conflicts in ${files.length} file${files.length === 1 ? '' : 's'}: ${files.slice(0, 20).join(', ')}${files.length > 20 ? ', …' : ''}. Nothing was changed: resolve it on ${branch} (or reject the handoff), then approve again`, { conflicts: files });
    }
    if (tree.status !== 0) throw new RoomError('CONFLICT', `git could not merge ${short(head)} into ${into}: ${gitProblem(tree)}`);
    const treeId = tree.stdout.split('\n')[0]?.trim() ?? '';
    const made = await git(repo, ['commit-tree', treeId, '-p', tip, '-p', head, '-m', message], { env: await identity(repo) });
    if (made.status !== 0) throw new RoomError('CONFLICT', `git could not make the merge commit: ${gitProblem(made)}`);
    target = made.stdout.trim();
  }
  const worktree = (await checkedOut(repo)).get(into) ?? null;
  return { into, tip, head, target, fastForward, worktree, paths: worktree ? await changedPaths(repo, tip, target) : [] };
}

/**
 * What a crash left of an accept that was never committed (the handoff is still open): the worktree folder and
 * the work's branch, removed when they hold nothing (the branch at the base commit; the folder only ever git's
 * checkout of it: nobody had it yet). Says what it removed, and what it had to keep.
 */
export async function clearLeftovers(repo: string, folder: string, branch: string, baseCommit: string): Promise<{ removed: string[]; kept: string[] }> {
  const removed: string[] = [];
  const kept: string[] = [];
  const registered = [...(await checkedOut(repo)).values()].includes(folder) || (await git(repo, ['worktree', 'list', '--porcelain'])).stdout.includes(`worktree ${folder}\n`);
  if (registered) {
    const out = await git(repo, ['worktree', 'remove', '--force', '--force', '--', folder]);
    if (out.status === 0) removed.push(`worktree ${folder}`);
  }
  if (fs.existsSync(folder)) {
    fs.rmSync(folder, { recursive: true, force: true });
    removed.push(`folder ${folder}`);
  }
  await git(repo, ['worktree', 'prune']);
  const at = (await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`])).stdout.trim();
  if (at === baseCommit) {
    const out = await git(repo, ['branch', '-D', '--', branch]);
    if (out.status === 0) removed.push(`branch ${branch}`);
    else kept.push(`branch ${branch} (${gitProblem(out)})`);
  } else if (at) {
    kept.push(`branch ${branch} (at ${short(at)}, not the base commit: rename or delete it, then accept again)`);
  }
  return { removed, kept };
}
