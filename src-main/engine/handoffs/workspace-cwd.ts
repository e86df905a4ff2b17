import path from 'node:path';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { EngineContext } from '../room/index';
import { HandoffQueries } from './queries';
import type { WorkspaceService } from '../workspaces/index';

/**
 * A handoff's workspace as the features that work in it see it (shells, graph stages): built once by the
 * engine (engine.ts) and handed to them, so they never read a handoff or a workspace row themselves.
 */
export interface HandoffWorkspaces {
  /**
   * The folder a shell or graph stage starts in when it names a handoff (shell_open / tasks_run with
   * handoffId): the handoff's worktree, or `cwd` inside it (a relative path; one that leaves it is refused).
   */
  folderFor(caller: Caller, handoffId: string, cwd?: string): string;
  /** Records a graph run on the handoff's workspace (inside the caller's commit); no workspace: nothing. */
  addRun(handoffId: string, runId: string, at: string): void;
}

export function handoffWorkspaces(ctx: EngineContext, service: WorkspaceService): HandoffWorkspaces {
  const queries = new HandoffQueries(ctx.room.db, ctx.room.tasks, service.repo);
  return {
    folderFor(caller, handoffId, cwd) {
      const w = service.usable(caller, queries.visibleRecord(caller, handoffId));
      if (cwd === undefined) return w.path;
      const inside = path.resolve(w.path, cwd);
      const rel = path.relative(w.path, inside);
      if (rel.startsWith('..') || path.isAbsolute(rel)) throw new RoomError('INVALID_INPUT', `cwd ${cwd} is outside handoff ${handoffId}'s worktree (${w.path}): give a path inside it, relative to it`);
      return inside;
    },
    addRun(handoffId, runId, at) {
      const w = service.repo.get(handoffId);
      if (w) service.repo.update(w.handoffId, { runs: [...w.runs, runId] }, at);
    },
  };
}
