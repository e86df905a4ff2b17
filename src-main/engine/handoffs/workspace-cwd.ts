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
  /**
   * The same for a shell, which also runs where the worktree is: `host` is the room's host it lives on (null:
   * this machine); a shell opened for the handoff inherits it.
   */
  placeFor(caller: Caller, handoffId: string, cwd?: string): { folder: string; host: string | null };
  /** Records a graph run on the handoff's workspace (inside the caller's commit); no workspace: nothing. */
  addRun(handoffId: string, runId: string, at: string): void;
}

export function handoffWorkspaces(ctx: EngineContext, service: WorkspaceService): HandoffWorkspaces {
  const queries = new HandoffQueries(ctx.room.db, ctx.room.tasks, service.repo);
  function placeFor(caller: Caller, handoffId: string, cwd?: string): { folder: string; host: string | null } {
    const w = service.usable(caller, queries.visibleRecord(caller, handoffId));
    const host = w.host ?? null;
    if (cwd === undefined) return { folder: w.path, host };
    // a host's folders are POSIX paths, whatever this machine's are
    const paths = host ? path.posix : path;
    const inside = paths.resolve(w.path, cwd);
    const rel = paths.relative(w.path, inside);
    if (rel.startsWith('..') || paths.isAbsolute(rel)) throw new RoomError('INVALID_INPUT', `cwd ${cwd} is outside handoff ${handoffId}'s worktree (${w.path}): give a path inside it, relative to it`);
    return { folder: inside, host };
  }
  return {
    placeFor,
    folderFor(caller, handoffId, cwd) {
      const place = placeFor(caller, handoffId, cwd);
      if (place.host) {
        throw new RoomError('INVALID_INPUT', `handoff ${handoffId}'s worktree is on host ${place.host}: a graph run in it is not placed there yet; run the graph with host "${place.host}" and cwd ${place.folder} (it is not listed in the handoff's evidence then), or open a shell with handoffId`);
      }
      return place.folder;
    },
    addRun(handoffId, runId, at) {
      const w = service.repo.get(handoffId);
      if (w) service.repo.update(w.handoffId, { runs: [...w.runs, runId] }, at);
    },
  };
}
