import type { EngineContext, Feature } from '../room/index';
import type { TaskService } from './task-service';
import { taskView, unknownTask } from './task-view';

type TaskMethods = 'task_get' | 'task_cancel' | 'task_answer';

/**
 * The generic task methods, over every kind of task (a graph run, a handoff's execution, a job): each kind's
 * own rules (who sees it, what cancelling or answering it does) are the ones its feature registered with the
 * task layer. The MCP task dialects' reads and writes come through here, so they are audited like every call.
 */
export function tasksFeature(_ctx: EngineContext, tasks: TaskService): Feature<TaskMethods> {
  const visible = (caller: Parameters<TaskService['find']>[0], taskId: string) => {
    const task = tasks.find(caller, taskId);
    if (!task) throw unknownTask(taskId);
    return taskView(task);
  };
  return {
    name: 'tasks',
    handlers: {
      task_get: (caller, input) => ({ task: visible(caller, input.taskId) }),
      task_cancel: async (caller, input) => {
        await tasks.cancel(caller, input.taskId);
        return { task: visible(caller, input.taskId) };
      },
      task_answer: async (caller, input) => {
        await tasks.answerInput(caller, input.taskId, input.responses);
        return {};
      },
    },
  };
}
