import { RoomError } from './errors';

/**
 * MCP task statuses, shared by every kind of task (a handoff's execution, a graph run). No extra states:
 * accepting a handoff leaves its task `working`.
 */
export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TERMINAL_TASK_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminalTask(status: TaskStatus): boolean {
  return TERMINAL_TASK_STATUSES.has(status);
}

const ALLOWED: Record<TaskStatus, readonly TaskStatus[]> = {
  working: ['input_required', 'completed', 'failed', 'cancelled'],
  input_required: ['working', 'completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

/** The one rule for task transitions; an illegal one is a clear error naming the current state. */
export function nextTaskStatus(current: TaskStatus, next: TaskStatus): TaskStatus {
  if (!ALLOWED[current].includes(next)) {
    throw new RoomError(
      'CONFLICT',
      isTerminalTask(current)
        ? `the task already ended (${current}); it cannot become ${next}`
        : `a task that is ${current} cannot become ${next}`,
      { status: current },
    );
  }
  return next;
}
