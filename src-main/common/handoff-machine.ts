import { RoomError } from './errors';
import { isTerminalTask, nextTaskStatus, type TaskStatus } from './task-machine';

/**
 * A handoff's own lifecycle, kept apart from its task's (MCP statuses) and from the approval decision.
 * open → accepted → result_ready → approved | rejected; cancelled ends it before a result exists.
 */
export const HANDOFF_STATUSES = ['open', 'accepted', 'result_ready', 'approved', 'rejected', 'cancelled'] as const;
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];

export const HANDOFF_ACTIONS = ['accept', 'request_input', 'answer_input', 'complete', 'approve', 'reject', 'cancel', 'expire'] as const;
export type HandoffAction = (typeof HANDOFF_ACTIONS)[number];

/** Both records as they are now. `task` is null once the task row has been deleted after its TTL. */
export interface HandoffState {
  handoff: HandoffStatus;
  task: TaskStatus | null;
}

export interface TransitionOptions {
  /** answer_input only: input requests still unanswered after this answer. */
  remainingInputs?: number;
}

/** Every refusal ends with both current states, so a reader never has to ask which record said no. */
function refuse(message: string, state: HandoffState): never {
  throw new RoomError('CONFLICT', `${message} (now: handoff ${state.handoff}, task ${state.task ?? 'deleted after its TTL'})`, {
    handoffStatus: state.handoff,
    taskStatus: state.task,
  });
}

/** The task a live action needs; a handoff whose task row is gone cannot be worked on any more. */
function liveTask(action: HandoffAction, state: HandoffState): TaskStatus {
  if (state.task === null) refuse(`cannot ${action.replace('_', ' ')}: the handoff's task no longer exists (it expired)`, state);
  return state.task;
}

function needHandoff(action: HandoffAction, state: HandoffState, allowed: readonly HandoffStatus[], hint: string): void {
  if (!allowed.includes(state.handoff)) {
    refuse(`cannot ${action.replace('_', ' ')} a handoff that is ${state.handoff}: ${hint}`, state);
  }
}

/**
 * The one rule for handoff transitions: given both records and an action, the state after it, or a CONFLICT
 * naming the current state. Approval and rejection never touch the task; task moves go through
 * `nextTaskStatus`, so the two machines cannot disagree.
 */
export function planHandoff(action: HandoffAction, state: HandoffState, options: TransitionOptions = {}): HandoffState {
  switch (action) {
    case 'accept': {
      needHandoff(action, state, ['open'], 'only an open handoff can be accepted');
      const task = liveTask(action, state);
      // accepting records the assignee; the task stays working (there is no "accepted" task status)
      if (task !== 'working') refuse(`cannot accept: its task is ${task}, not working`, state);
      return { handoff: 'accepted', task };
    }
    case 'request_input': {
      needHandoff(action, state, ['accepted'], 'accept it first; input is requested while working on it');
      const task = liveTask(action, state);
      if (task === 'input_required') refuse('cannot request input: the task is already input_required; wait for the answer first', state);
      return { handoff: 'accepted', task: nextTaskStatus(task, 'input_required') };
    }
    case 'answer_input': {
      needHandoff(action, state, ['accepted'], 'only an accepted handoff waits for input');
      const task = liveTask(action, state);
      if (task !== 'input_required') refuse(`cannot answer input: the task is ${task}, and no input is outstanding`, state);
      const remaining = options.remainingInputs ?? 0;
      return { handoff: 'accepted', task: remaining > 0 ? 'input_required' : nextTaskStatus(task, 'working') };
    }
    case 'complete': {
      if (state.handoff === 'result_ready' || state.handoff === 'approved' || state.handoff === 'rejected') {
        refuse(`cannot complete a handoff that is ${state.handoff}: it already has a result, and a second completion does not replace it`, state);
      }
      needHandoff(action, state, ['accepted'], 'accept it before completing it');
      const task = liveTask(action, state);
      if (task === 'input_required') refuse('cannot complete: the task is input_required; wait for the answer to the outstanding input first', state);
      return { handoff: 'result_ready', task: nextTaskStatus(task, 'completed') };
    }
    case 'approve':
    case 'reject':
      // a decision about the result; the task (completed, or already deleted) is left exactly as it is
      needHandoff(action, state, ['result_ready'], 'only a handoff whose result is ready can be approved or rejected');
      return { handoff: action === 'approve' ? 'approved' : 'rejected', task: state.task };
    case 'cancel': {
      needHandoff(
        action,
        state,
        ['open', 'accepted'],
        state.handoff === 'result_ready' ? 'its result is ready: approve or reject it instead' : 'it has already ended',
      );
      if (state.task === null || isTerminalTask(state.task)) return { handoff: 'cancelled', task: state.task };
      return { handoff: 'cancelled', task: nextTaskStatus(state.task, 'cancelled') };
    }
    case 'expire': {
      // the TTL sweeper: a task still running one TTL after creation fails, and an unfinished handoff ends
      const task = liveTask(action, state);
      if (isTerminalTask(task)) refuse(`cannot expire: the task already ended (${task})`, state);
      const handoff: HandoffStatus = state.handoff === 'open' || state.handoff === 'accepted' ? 'cancelled' : state.handoff;
      return { handoff, task: nextTaskStatus(task, 'failed') };
    }
  }
}

export function isFinalHandoff(status: HandoffStatus): boolean {
  return status === 'approved' || status === 'rejected' || status === 'cancelled';
}
