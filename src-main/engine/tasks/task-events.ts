import type { EventRule } from '../room/index';

/** A task's events are read by its owner or assignee. */
export const TASK_EVENTS: EventRule = { prefix: 'task.', visible: 'EXISTS (SELECT 1 FROM tasks t WHERE t.id = e.subject AND (t.owner = @me OR t.assignee = @me))' };
