import type { InputRequest, TaskView } from '../../common/handoff-dto';
import { RoomError } from '../../common/errors';
import { taskLogUri } from '../../common/task-record';
import type { TaskRecord } from '../store/tasks';

/** A task row as every door shows it: MCP task field names, optional fields only when they exist. */
export function taskView(t: TaskRecord): TaskView {
  const view: TaskView = {
    taskId: t.id,
    operation: t.operation,
    owner: t.owner,
    assignee: t.assignee,
    status: t.status,
    statusMessage: t.statusMessage,
    createdAt: t.createdAt,
    lastUpdatedAt: t.updatedAt,
    ttl: t.ttlMs,
    pollInterval: t.pollIntervalMs,
    correlationId: t.correlationId,
    schemaVersion: t.schemaVersion,
    taskLog: taskLogUri(t.id),
  };
  if (t.result !== null) view.result = t.result;
  if (t.error !== null) view.error = t.error;
  if (t.inputRequests !== null) view.inputRequests = t.inputRequests as Record<string, InputRequest>;
  return view;
}

/** Unknown and not visible are one answer, so ids cannot be probed. */
export function unknownTask(id: string): RoomError {
  return new RoomError('NOT_FOUND', `unknown task "${id}"`);
}
