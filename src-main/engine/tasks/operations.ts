/**
 * The kinds of task (a task row's `operation`), one constant each. Every door and feature names a kind
 * through these, never through a string of its own.
 */
/** A handoff's execution: the task the assignee works on. */
export const HANDOFF_OPERATION = 'handoff.execute';
/** A task graph's run (the task id is the graph id). */
export const GRAPH_OPERATION = 'graph.run';
/** In-process work run as a task (engine/tasks/task-jobs.ts). */
export const JOB_OPERATION = 'job.run';
