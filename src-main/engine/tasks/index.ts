/**
 * The tasks face: the one task layer (`TaskService`: every task row's writer, through the task machine),
 * the generic task methods (task_get, task_cancel, task_answer: tasks-feature.ts) and the task view every door
 * shows, task logs, jobs, operations and who may see a task. Owns the `tasks` table's writes.
 */

export { GRAPH_OPERATION, HANDOFF_OPERATION, JOB_OPERATION } from './operations';
export { TaskJobs } from './task-jobs';
export { type LogReader, TaskLogs } from './task-logs';
export { type TaskError, TaskService } from './task-service';
export { canSeeTask } from './task-visibility';
export { tasksFeature } from './tasks-feature';
export { taskView, unknownTask } from './task-view';
export { TASK_EVENTS } from './task-events';
