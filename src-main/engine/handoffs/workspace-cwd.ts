import path from 'node:path';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { EngineContext } from '../room/feature';
import { HandoffQueries } from './queries';
import { WorkspaceService } from '../workspaces/workspace-service';

/**
 * The folder a shell or graph stage starts in when it names a handoff (shell_open / tasks_run with handoffId):
 * the handoff's worktree, or `cwd` inside it (a relative path; one that leaves the worktree is refused).
 */
export function workspaceCwd(ctx: EngineContext, caller: Caller, handoffId: string, cwd?: string): string {
  const h = new HandoffQueries(ctx.room.db, ctx.room.tasks).visibleRecord(caller, handoffId);
  const w = new WorkspaceService(ctx).usable(caller, h);
  if (cwd === undefined) return w.path;
  const inside = path.resolve(w.path, cwd);
  const rel = path.relative(w.path, inside);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new RoomError('INVALID_INPUT', `cwd ${cwd} is outside handoff ${handoffId}'s worktree (${w.path}): give a path inside it, relative to it`);
  return inside;
}
