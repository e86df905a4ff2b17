import { isTerminalTask } from '../../common/task-machine';
import type { EngineContext } from '../feature';
import type { TaskService } from '../tasks/task-service';
import { HandoffActions } from './handoff-actions';
import { HANDOFF_OPERATION } from '../tasks/operations';

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
export function sweepHandoffTasks(ctx: EngineContext, tasks: TaskService): SweepReport {
  const actions = new HandoffActions(ctx, tasks);
  const now = ctx.room.clock().getTime();
  const report: SweepReport = { expired: [], deleted: [] };
  const ids = ctx.room.db
    .prepare('SELECT id FROM tasks WHERE operation = ? AND ttl_ms IS NOT NULL ORDER BY created_at')
    .pluck()
    .all(HANDOFF_OPERATION) as string[];
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
