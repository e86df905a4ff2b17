/**
 * The workspaces face: git worktrees for handoffs (`WorkspaceService`), the evidence captured at completion,
 * git itself (`git.ts`: a clean environment, nothing the agent wrote sourced). Owns the `workspaces`,
 * `workspace_intents` and `workspace_files` tables (only `WorkspaceService` builds their repositories).
 */

export { lockSince, restorePaths } from './checkout';
export { diffBetween } from './evidence';
export { commitOf, previewMerge, refsNow, type Neighbour } from './preview';
export { git, gitProblem, gitRead } from './git';
export { gitTagPrefix, workspaceBranch, WorkspaceService } from './workspace-service';
export { addWorktree, branchMayExist, clearLeftovers, removeWorktree } from './worktrees';
export { fetchedRef, type HostWorkspacePort } from './host-port';
export { uncommittedIn } from './evidence';
