import { isTerminalTask } from '../../common/task-machine';
import type { EngineContext } from '../room/index';
import type { TaskService } from '../tasks/index';
import { HandoffActions } from './handoff-actions';
import type { WorkspaceService } from '../workspaces/index';
import { HANDOFF_OPERATION } from '../tasks/index';

export interface SweepReport {
  /** Tasks that outlived their TTL while still running: now failed, their handoffs cancelled. */
  expired: string[];
  /** Ended tasks whose rows were deleted one TTL after their last update. */
  deleted: string[];
}

/**
 * The TTL rules for handoff tasks, judged by the room's injected clock (tests move it; nothing sleeps).
 * A running task older than one TTL from creation fails ("task expired"); an ended one is deleted one TTL
 * after its last update. Active work inside its TTL is never touched. Only handoff tasks: graph runs keep
 * their own retention.
 */
export function sweepHandoffTasks(ctx: EngineContext, tasks: TaskService, workspaces?: WorkspaceService): SweepReport {
  const actions = new HandoffActions(ctx, tasks, workspaces);
  const now = ctx.room.clock().getTime();
  const report: SweepReport = { expired: [], deleted: [] };
  // only the rows due, found through the due_at index (a room keeps its ended handoffs for a TTL: reading every
  // one at each sweep, and before the first answer at start, grew with history); the clock still judges each
  // task below, so the index only narrows (its millisecond may round: one more is read, never one fewer)
  const ids = ctx.room.db
    .prepare('SELECT id FROM tasks WHERE due_at <= ? AND operation = ? ORDER BY created_at')
    .pluck()
    .all(now + 1, HANDOFF_OPERATION) as string[];
  for (const id of ids) {
    const task = actions.q.tasks.get(id);
    if (!task || task.ttlMs === null) continue;
    if (!isTerminalTask(task.status)) {
      if (Date.parse(task.createdAt) + task.ttlMs <= now) {
        actions.expire(task.id);
        report.expired.push(task.id);
      }
    } else if (Date.parse(task.updatedAt) + task.ttlMs <= now) {
      actions.deleteTask(task);
      report.deleted.push(task.id);
    }
  }
  return report;
}
