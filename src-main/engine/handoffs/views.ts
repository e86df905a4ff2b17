import type { HandoffView, InputRequest, TaskView, WorkspaceView } from '../../common/handoff-dto';
import { taskLogUri } from '../../common/task-record';
import type { HandoffRecord } from '../store/handoffs';
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

export function handoffView(h: HandoffRecord, task: TaskRecord | null, workspace: WorkspaceView | null = null): HandoffView {
  return {
    id: h.id,
    status: h.status,
    owner: h.owner,
    to: h.target,
    assignee: h.assignee,
    summary: h.summary,
    constraints: h.constraints,
    artifacts: h.artifacts,
    result: h.result,
    inputAnswers: h.inputAnswers,
    decision: h.decision,
    cancellation: h.cancellation,
    taskId: h.taskId,
    task: task ? taskView(task) : null,
    workspace,
    createdAt: h.createdAt,
    updatedAt: h.updatedAt,
  };
}
