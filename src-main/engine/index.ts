/**
 * The engine's public surface for the doors and entry points (cli/, server/, app/): the Engine and its
 * contract method table, opening a room (as its writer, or read-only), where a room lives, and which process
 * serves it. Doors import this (or engine.ts), never engine/store/** or a feature's internals (eslint.config.js).
 */
export { Engine } from './engine';
/** The engine as a door sees it: call, and the narrow ports (doors are typed against this, never Engine). */
export type { DoorEngine, TaskReads, ShellReads, LiveShell, TaskLogReads, PresenceMarks, ChangeFeed, SignIns } from './ports';
export type { CallContext } from './room/index';
export { Room } from './room/index';
export { findRunningRoom, type RunningRoomEndpoint } from './room/index';
export { findOnPath } from './process/find-on-path';
/** The agent sandbox's probe run ahead of its detection (serve: beside the room's opening). */
export { probeSandboxAhead } from './process/sandbox-probe';
export { resolvePaths, type Paths } from './core/config';
/** What a live shell viewer (the UI door) implements and gets back: output paced by acknowledgements. */
export { SHELLS_CHANGED, type ShellAttachment } from './shells/index';
export { PRESENCE_CHANGED } from './people/index';
export type { ShellExit, ShellViewer } from './shells/index';
/** Bearer-token helpers (256 random bits, compared by hash), for doors that mint a credential of their own. */
export { hashToken, looksLikeToken, mintToken, sameHash } from './core/tokens';
/** The operation of a graph run's task (doors that treat graph runs apart: progress for 2025 task calls). */
export { GRAPH_OPERATION, HANDOFF_OPERATION } from './tasks/index';
/** A room node's reads of its own graphs (server/room-node.ts: a stage placed on it by name runs once). */
export { nodeGraphReads, type NodeGraphReads } from './graphs/index';
/** A room node's side of a handoff's worktree placed on it (server/node-worktrees.ts): the room's own git there. */
export { addWorktree, git, gitProblem, removeWorktree, uncommittedIn } from './workspaces/index';
export { worktreeInDataDir } from './core/room-paths';
/** A room node's side of an agent started on its host (server/node-agents.ts): its private run folder, its shell's view. */
export { agentRunsFolder } from './core/room-paths';
export { createPrivateFile, ensureOwnDir } from './core/fs-safe';
export { viewOf } from './shells/index';
export type { RemoteAgentOpen } from './hosts/index';
export { encodeOutputFrame } from './hosts/index';
export { clientVersions, sampleTrees } from './agents/index';
