import { z } from 'zod';
import type { HandoffView, TaskView } from '../handoff-dto';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import { reason } from './handoff-decisions';
import { participantName } from './participants';

/** Tasks of any kind (a handoff's execution, a graph run): read, cancel and answer by task id (MCP's task methods, ce task). */
export const TASK_METHODS = {
  handoff_task_cancel_as: {
    description: "Operator only (ce task-cancel): cancel a task (a handoff's, or a graph run) on behalf of a named participant, with that participant's rights.",
    capability: 'operate',
    input: lazily(() => z.object({ taskId: z.string().min(1).max(64), participant: participantName(), reason: reason().optional() }).strict()),
    mcpTool: false,
  },
  task_get: {
    description: 'Read a task of any kind (a handoff execution, a graph run, a job) as the caller may see it: unknown and not visible are one answer.',
    capability: 'read',
    input: lazily(() => z.object({ taskId: z.string().min(1).max(64) }).strict()),
    mcpTool: false,
    readOnly: true,
  },
  task_cancel: {
    description:
      "Cancel a live task of any kind as the caller (MCP tasks/cancel on both eras): the work behind it stops and it reads cancelled; an ended one is refused, naming its state.",
    capability: 'write',
    input: lazily(() => z.object({ taskId: z.string().min(1).max(64) }).strict()),
    mcpTool: false,
  },
  task_answer: {
    description:
      "Answer a task's input requests by key as the caller (MCP tasks/update, and answers elicited during tasks/result): unknown or stale keys are ignored.",
    capability: 'write',
    input: lazily(() =>
      z
        .object({
          taskId: z.string().min(1).max(64),
          // keys the task does not wait on are ignored (by the task), not refused here
          responses: z.record(z.string(), z.unknown()).refine((r) => JSON.stringify(r).length <= 65_536 * 4, 'answers are at most 256 KiB of JSON'),
        })
        .strict(),
    ),
    mcpTool: false,
  },
} satisfies Record<string, MethodSpec>;

export interface TaskOutputs {
  handoff_task_cancel_as: { handoff: HandoffView | null; task: TaskView | null };
  task_get: { task: TaskView };
  task_cancel: { task: TaskView };
  task_answer: Record<string, never>;
}
