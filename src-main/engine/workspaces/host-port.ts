/**
 * A handoff's worktree on one of the room's hosts (issue 42, docs/hosts.md): what WorkspaceService asks of the
 * hosts feature (engine/hosts builds it over the room's links to its hosts' nodes; engine.ts hands it in). The
 * worktree is made and tidied by the host's node, in the host's own clone of the repository, with the room's git
 * there (no hook, no config program); the work comes back to this machine by `git fetch` over the person's SSH
 * connection, into a ref of the room's own (never a branch of the person's), and is reviewed and merged here.
 */
export interface HostWorkspacePort {
  /** Refuses a host this caller may not place work on (not a host of the room; for an agent, one the person keeps). */
  allowed(caller: { role: string }, host: string): void;
  /** Makes the worktree on `host`: branch `branch` at `baseCommit` in the clone `hostRepo`; the folder there. */
  add(host: string, work: { hostRepo: string; baseCommit: string; branch: string; handoffId: string }): Promise<string>;
  /**
   * Brings the work's branch back: `git fetch` from the host's clone over SSH into `ref` of `repo` (this
   * machine's repository); the commit fetched.
   */
  fetch(host: string, work: { hostRepo: string; branch: string; repo: string; ref: string }): Promise<string>;
  /** The files of the worktree there that are not committed (what the fetch cannot bring), with their git status. */
  uncommitted(host: string, work: { hostRepo: string; handoffId: string }): Promise<{ path: string; status: string }[]>;
  /** Removes the worktree there when nothing in it would be lost (its branch too unless `keepBranch`, or it holds commits past `mergedHead`, the commit merged here). */
  remove(host: string, work: { hostRepo: string; handoffId: string; branch: string; baseCommit: string; keepBranch: boolean; mergedHead: string | null }): Promise<{ removed: boolean; note: string | null }>;
}

/** The room's own ref a host's work is fetched into, in the person's repository here (never under refs/heads). */
export const fetchedRef = (handoffId: string) => `refs/commonroom/fetched/${handoffId}`;
