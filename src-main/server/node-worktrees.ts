import fs from 'node:fs';
import path from 'node:path';
import type { LineExtras } from '../api/line-door';
import type { Caller } from '../common/dto';
import { RoomError } from '../common/errors';
import { addWorktree, git, gitProblem, removeWorktree, uncommittedIn, worktreeInDataDir } from '../engine/index';

/**
 * What a room node answers for a handoff's worktree placed on its host (docs/hosts.md): made in the host's own
 * clone of the repository, in the node's data folder (`worktrees/<room key>/<handoff id>`, where the host's
 * sandbox lets the handoff's agent write), its uncommitted files read, and removed when the work ends. Only
 * the placing room asks (the node's operator: the link's calls without `as`); an agent of the node's room is
 * refused. Every git here is the room's git (no hook, no config program), as on the person's machine.
 */
const HANDOFF = /^[A-Za-z0-9_-]{1,64}$/;
const BRANCH = /^commonroom\/[A-Za-z0-9_-]{1,64}$/;
const COMMIT = /^[0-9a-f]{40,64}$/;

interface Work {
  hostRepo: string;
  handoffId: string;
}

function workOf(caller: Caller, params: unknown, method: string): Work & Record<string, unknown> {
  if (caller.role !== 'operator') throw new RoomError('FORBIDDEN', `${method} is the placing room's own call`);
  const p = (params ?? {}) as Record<string, unknown>;
  if (typeof p.hostRepo !== 'string' || !path.isAbsolute(p.hostRepo)) throw new RoomError('INVALID_INPUT', `${method}: hostRepo is the absolute path of the repository's clone on this host`);
  if (typeof p.handoffId !== 'string' || !HANDOFF.test(p.handoffId)) throw new RoomError('INVALID_INPUT', `${method}: handoffId is the handoff's id`);
  return p as Work & Record<string, unknown>;
}

export function nodeWorktreeMethods(dataDir: string, key: string): LineExtras {
  const folderOf = (handoffId: string) => worktreeInDataDir(dataDir, key, handoffId);
  return {
    node_worktree_add: async (caller: Caller, params: unknown) => {
      const work = workOf(caller, params, 'node_worktree_add');
      const { baseCommit, branch } = work;
      if (typeof baseCommit !== 'string' || !COMMIT.test(baseCommit)) throw new RoomError('INVALID_INPUT', 'node_worktree_add: baseCommit is a commit id');
      if (typeof branch !== 'string' || !BRANCH.test(branch)) throw new RoomError('INVALID_INPUT', 'node_worktree_add: branch is commonroom/<handoff id>');
      const folder = folderOf(work.handoffId);
      const top = await git(work.hostRepo, ['rev-parse', '--show-toplevel']).catch((e: Error) => ({ status: 1, stdout: '', stderr: e.message }));
      if (top.status !== 0) throw new RoomError('INVALID_INPUT', `${work.hostRepo} is not a git repository on this host (${gitProblem(top)}): give the path of the repository's clone here (workspace.hostRepo)`);
      const repo = top.stdout.trim();
      const has = await git(repo, ['cat-file', '-e', `${baseCommit}^{commit}`]);
      if (has.status !== 0) {
        throw new RoomError('CONFLICT', `the clone ${repo} on this host does not have the base commit ${baseCommit.slice(0, 7)}: bring it up to date there (git fetch or git pull), then accept again`);
      }
      // asked again (a link that dropped while it asked): the worktree made the first time is the answer
      if (fs.existsSync(folder)) {
        const at = await git(folder, ['symbolic-ref', '--quiet', 'HEAD']);
        if (at.status === 0 && at.stdout.trim() === `refs/heads/${branch}`) return { path: folder };
      }
      await addWorktree({ repo, base: baseCommit, baseBranch: null, baseCommit }, branch, folder);
      return { path: folder };
    },
    node_worktree_status: async (caller: Caller, params: unknown) => {
      const work = workOf(caller, params, 'node_worktree_status');
      const folder = folderOf(work.handoffId);
      if (!fs.existsSync(folder)) throw new RoomError('CONFLICT', `the worktree ${folder} of handoff ${work.handoffId} is gone from this host`);
      return { files: await uncommittedIn(folder) };
    },
    // "ready for review?" of an agent working in it: its HEAD and how many commits it has past `since` (the base,
    // or a rejected work's head), read with the room's own git here
    node_worktree_commits: async (caller: Caller, params: unknown) => {
      const work = workOf(caller, params, 'node_worktree_commits');
      if (typeof work.since !== 'string' || !COMMIT.test(work.since)) throw new RoomError('INVALID_INPUT', 'node_worktree_commits: since is a commit id');
      const folder = folderOf(work.handoffId);
      if (!fs.existsSync(folder)) throw new RoomError('CONFLICT', `the worktree ${folder} of handoff ${work.handoffId} is gone from this host`);
      const head = await git(folder, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
      if (head.status !== 0) return { head: null, commits: 0 };
      const count = await git(folder, ['rev-list', '--count', `${work.since}..HEAD`]);
      return { head: head.stdout.trim(), commits: count.status === 0 ? Number(count.stdout.trim()) : 0 };
    },
    node_worktree_remove: async (caller: Caller, params: unknown) => {
      const work = workOf(caller, params, 'node_worktree_remove');
      const { branch, baseCommit } = work;
      if (typeof branch !== 'string' || !BRANCH.test(branch) || typeof baseCommit !== 'string' || !COMMIT.test(baseCommit)) throw new RoomError('INVALID_INPUT', 'node_worktree_remove: branch and baseCommit as at node_worktree_add');
      // merged only when the branch here is still at the commit that was merged: a commit made after the review
      // was not merged, and stays on the branch
      const tip = await git(work.hostRepo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`]);
      const merged = typeof work.mergedHead === 'string' && tip.status === 0 && tip.stdout.trim() === work.mergedHead;
      return removeWorktree(work.hostRepo, folderOf(work.handoffId), branch, { keepBranch: work.keepBranch === true, baseCommit, merged });
    },
  };
}
