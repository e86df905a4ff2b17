import type { HandoffView, WorkspaceView } from '../../common/handoff-dto';
import { taskView } from '../tasks/index';
import type { HandoffRecord } from '../store/handoffs';
import type { TaskRecord } from '../store/tasks';

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
