import path from 'node:path';
import type { Paths } from './config';

/**
 * Every file and folder a room and its runner keep, named in one place. A room is `<name>.md` with, beside it,
 * `<name>.md.commonroom.db` (its SQLite database), `.commonroom.lock` (the single-writer lock),
 * `.commonroom.d/` (stage logs and archived artifacts, 0700) and, for handoffs with a workspace,
 * `<name>.worktrees/`. The runner's data folder holds the default room, agent run folders, shell integration
 * scripts, the sandbox's mask file and worktrees that cannot go beside their room; its config folder, the
 * operator tokens.
 */

/** The room used when none is given: the app starts with no setup. */
export function defaultRoomMarkdown(paths: Paths): string {
  return path.join(roomsFolder(paths.dataDir), 'default.md');
}

/** The runner's folder of rooms (the default room and any other kept there). */
export function roomsFolder(dataDir: string): string {
  return path.join(dataDir, 'rooms');
}

/** `notes.md` → `notes.md.commonroom.db`, beside it. */
export function databasePathFor(markdownPath: string): string {
  return `${markdownPath}.commonroom.db`;
}

/** The single-writer lock: a tiny SQLite file beside the room whose write lock the writer holds. */
export function lockPathFor(markdownPath: string): string {
  return `${markdownPath}.commonroom.lock`;
}

/** A room's database, lock and folder, and their SQLite side files, by name (the sandbox hides them all). */
export const ROOM_FILE_NAME = /\.commonroom\.(db|lock)(-wal|-shm|-journal)?$/;
export const ROOM_FOLDER_NAME = /\.commonroom\.d$/;

/** Where a room keeps the files it owns besides its database: `<room>.md.commonroom.d/` (0700). */
export function roomStateDir(markdownPath: string): string {
  return `${markdownPath}.commonroom.d`;
}

/** Graph stages' logs while their graph runs: `<state>/logs/<graphId>/<stageId>.log`. */
export function stageLogRoot(markdownPath: string): string {
  return path.join(roomStateDir(markdownPath), 'logs');
}

/** Ended graphs' logs, one archive each: `<state>/artifacts/<graphId>.logs.gz`. */
export function artifactRootOf(markdownPath: string): string {
  return path.join(roomStateDir(markdownPath), 'artifacts');
}

/** A handoff's worktree beside its room: `<name>.worktrees/<handoff id>`. */
export function worktreeBesideRoom(markdownPath: string, handoffId: string): string {
  return path.join(path.dirname(markdownPath), `${path.basename(markdownPath, '.md')}.worktrees`, handoffId);
}

/** A handoff's worktree in the runner's data folder (when beside the room would be inside the repository). */
export function worktreeInDataDir(dataDir: string, roomId: string, handoffId: string): string {
  return path.join(dataDir, 'worktrees', roomId, handoffId);
}

/** Agent runs' private folders (their client configuration, 0600 files). */
export function agentRunsFolder(dataDir: string): string {
  return path.join(dataDir, 'agent-runs');
}

/** The shell integration scripts shells source (bash, zsh). */
export function shellIntegrationFolder(dataDir: string): string {
  return path.join(dataDir, 'shell-integration');
}

/** The sandbox's private folder (its unreadable mask file). */
export function sandboxFolder(dataDir: string): string {
  return path.join(dataDir, 'sandbox');
}

/** The operator's token for one room, in the user's config folder (0600). */
export function operatorTokenPath(paths: Paths, roomId: string): string {
  return path.join(paths.configDir, 'tokens', `${roomId}.operator.token`);
}
