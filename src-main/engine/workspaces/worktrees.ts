import fs from 'node:fs';
import path from 'node:path';
import { RoomError } from '../../common/errors';
import { git, gitOk, gitProblem, identity } from './git';
import { worktreeBesideRoom, worktreeInDataDir } from '../room/room-paths';

/** The repository and base a handoff's workspace starts from, as resolved when the handoff is created. */
export interface WorkspacePlan {
  repo: string;
  base: string;
  baseBranch: string | null;
  baseCommit: string;
}

const REF = /^[^\s~^:?*[\\]+$/;
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
  const top = await git(where, ['rev-parse', '--show-toplevel']);
  if (top.status !== 0) throw new RoomError('INVALID_INPUT', `workspace.repo ${where} is not in a git repository (${gitProblem(top)}): run "git init" there, or give another folder`);
  const repo = top.stdout.trim();
  const bare = await git(repo, ['rev-parse', '--is-bare-repository']);
  if (bare.stdout.trim() === 'true') throw new RoomError('INVALID_INPUT', `workspace.repo ${repo} is a bare repository: give a repository with a working tree`);
  const head = await git(repo, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (head.status !== 0) throw new RoomError('INVALID_INPUT', `the repository ${repo} has no commits yet: commit something first, so the work has a base`);
  let wanted = base;
  if (wanted === undefined) {
    const branch = await git(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
    wanted = branch.status === 0 ? branch.stdout.trim() : head.stdout.trim();
  }
  if (!REF.test(wanted) || wanted.startsWith('-')) throw new RoomError('INVALID_INPUT', `workspace.base ${JSON.stringify(wanted)} is not a branch, tag or commit name`);
  const commit = await git(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${wanted}^{commit}`]);
  if (commit.status !== 0) throw new RoomError('INVALID_INPUT', `workspace.base "${wanted}" does not name a commit in ${repo}: give a branch (e.g. main), a tag or a commit`);
  const isBranch = (await git(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${wanted}`])).status === 0;
  return { repo, base: wanted, baseBranch: isBranch ? wanted : null, baseCommit: commit.stdout.trim() };
}

/** Whether `child` is `parent` or inside it. */
function within(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Where a handoff's worktree goes: beside the room file (`<room>.worktrees/<handoff id>`), or, when that is
 * inside the repository's working tree (a room file kept in the repository), in the runner's data folder.
 */
export function worktreeFolder(plan: WorkspacePlan, markdownPath: string, dataDir: string, roomId: string, handoffId: string): string {
  const beside = worktreeBesideRoom(markdownPath, handoffId);
  if (!within(plan.repo, beside)) return beside;
  return worktreeInDataDir(dataDir, roomId, handoffId);
}

/** Makes the worktree on its new branch at the base commit. */
export async function addWorktree(plan: WorkspacePlan, branch: string, folder: string): Promise<void> {
  if (fs.existsSync(folder)) throw new RoomError('CONFLICT', `the workspace folder ${folder} already exists: remove it, or continue the handoff that made it`);
  fs.mkdirSync(path.dirname(folder), { recursive: true, mode: 0o700 });
  const out = await git(plan.repo, ['worktree', 'add', '--quiet', '-b', branch, '--', folder, plan.baseCommit]);
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

export interface MergeOutcome {
  commit: string;
  fastForward: boolean;
}

/**
 * Merges the work's branch into `into`: a fast-forward when the base has not moved, else a merge commit made
 * without touching any working tree (git merge-tree), whose message names the handoff. Then the base branch
 * moves to it: through the worktree that has it checked out (git merge --ff-only, which keeps that tree's own
 * changes and refuses to overwrite them), or as a ref update that fails if the branch moved meanwhile. A
 * conflict, or a working tree in the way, changes nothing and says which files.
 */
export async function mergeBranch(repo: string, into: string, branch: string, message: string): Promise<MergeOutcome> {
  const tip = (await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${into}^{commit}`])).stdout.trim();
  if (!tip) throw new RoomError('CONFLICT', `the base branch ${into} no longer exists in ${repo}: approve without merging, or recreate it`);
  const head = (await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`])).stdout.trim();
  if (!head) throw new RoomError('CONFLICT', `the work's branch ${branch} is gone from ${repo}: nothing to merge (approve without merging)`);
  if ((await git(repo, ['merge-base', '--is-ancestor', head, tip])).status === 0) {
    throw new RoomError('CONFLICT', `${into} already has every commit of ${branch}: nothing to merge (approve without merging)`);
  }
  const fastForward = (await git(repo, ['merge-base', '--is-ancestor', tip, head])).status === 0;
  let target = head;
  if (!fastForward) {
    const tree = await git(repo, ['merge-tree', '--write-tree', '--name-only', '--no-messages', tip, head]);
    if (tree.status === 1) {
      const files = tree.stdout.split('\n').slice(1).filter((l) => l !== '');
      throw new RoomError('CONFLICT', `merging ${branch} into ${into} conflicts in ${files.length} file${files.length === 1 ? '' : 's'}: ${files.slice(0, 20).join(', ')}${files.length > 20 ? ', …' : ''}. Nothing was changed: resolve it on ${branch} (or reject the handoff), then approve again`, { conflicts: files });
    }
    if (tree.status !== 0) throw new RoomError('CONFLICT', `git could not merge ${branch} into ${into}: ${gitProblem(tree)}`);
    const treeId = tree.stdout.split('\n')[0]?.trim() ?? '';
    const made = await git(repo, ['commit-tree', treeId, '-p', tip, '-p', head, '-m', message], { env: await identity(repo) });
    if (made.status !== 0) throw new RoomError('CONFLICT', `git could not make the merge commit: ${gitProblem(made)}`);
    target = made.stdout.trim();
  }
  const worktree = (await checkedOut(repo)).get(into);
  if (worktree) {
    const ff = await git(worktree, ['merge', '--ff-only', '--quiet', target]);
    if (ff.status !== 0) {
      throw new RoomError('CONFLICT', `${into} is checked out in ${worktree}, and moving it there failed (${gitProblem(ff)}). Nothing was changed: commit or stash the changes in the way, then approve again`);
    }
  } else {
    const moved = await git(repo, ['update-ref', '-m', message, `refs/heads/${into}`, target, tip]);
    if (moved.status !== 0) throw new RoomError('CONFLICT', `${into} moved while merging (${gitProblem(moved)}): approve again`);
  }
  return { commit: target, fastForward };
}
