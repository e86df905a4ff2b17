import type { GraphState } from '../../common/graphs/stage-machine';
import type { TaskStatus } from '../../common/task-machine';
import type { EventInput } from '../room/index';
import type { StageRecord } from '../store/graphs';
import type { TaskError, TaskService } from '../tasks/index';

/**
 * A graph run's task row (its id is the graph id), written only through the task layer. While the graph runs,
 * the task's statusMessage says where its stages are, rewritten whenever a stage moves: that write's event is
 * how a listener of the graph's task (MCP subscriptions/listen, 2025 notifications/tasks/status) hears of a
 * stage transition.
 */

/** How many stages have ended (whatever the way) out of all: the graph's progress, done/total. */
export function stagesDone(stages: readonly Pick<StageRecord, 'state'>[]): { done: number; total: number } {
  let done = 0;
  for (const s of stages) if (s.state !== 'pending' && s.state !== 'running') done++;
  return { done, total: stages.length };
}

/** "3/6 stages done: 2 running (build, test) · 1 pending · 3 completed", in the stages' order of appearance. */
export function progressMessage(stages: readonly Pick<StageRecord, 'stageId' | 'state'>[]): string {
  const { done, total } = stagesDone(stages);
  return `${done}/${total} stages done: ${stateCounts(stages)}`;
}

/** Written on every tick a stage moves: counts only (and the first running names), no list of every stage. */
function stateCounts(stages: readonly Pick<StageRecord, 'stageId' | 'state'>[]): string {
  const counts = new Map<string, number>();
  const running: string[] = [];
  for (const s of stages) {
    counts.set(s.state, (counts.get(s.state) ?? 0) + 1);
    if (s.state === 'running' && running.length < 5) running.push(s.stageId);
  }
  const parts: string[] = [];
  for (const [state, n] of counts) {
    const names = state === 'running' ? ` (${running.join(', ')}${n > 5 ? ', …' : ''})` : '';
    parts.push(`${n} ${state}${names}`);
  }
  return parts.join(' · ');
}

/** A stage moved: the graph's live task says so (and a task already ended is left alone). */
export function noteGraphProgress(tasks: TaskService, graphId: string, stages: readonly StageRecord[]): void {
  tasks.transition(graphId, { statusMessage: progressMessage(stages) });
}

/**
 * The graph ended: its task ends the same way, recorded by `ended` (the graph.ended event). A task that
 * already ended (cancelled through tasks/cancel) is not rewritten: the machine refuses, and `ended` is
 * recorded on its own.
 */
export function endGraphTask(
  tasks: TaskService,
  graphId: string,
  change: { state: GraphState; statusMessage: string; result: Record<string, unknown>; error?: TaskError },
  ended: EventInput,
  events: EventInput[],
): void {
  const status: TaskStatus = change.state === 'completed' ? 'completed' : change.state === 'failed' ? 'failed' : 'cancelled';
  const error = change.error && status === 'failed' ? { error: change.error } : {};
  if (!tasks.transition(graphId, { status, statusMessage: change.statusMessage, result: change.result, ...error }, ended)) events.push(ended);
}

/**
 * A graph that just ended: its task reads the outcome (all completed, which stages failed, or cancelled), with
 * the graph.ended event (by whoever cancelled it, when someone did) as that write's event.
 */
export function finishGraphTask(
  tasks: TaskService,
  graphId: string,
  state: GraphState,
  stages: readonly { stageId: string; state: string }[],
  cancelActor: string | null,
  events: EventInput[],
): void {
  const failed = stages.filter((s) => s.state === 'failed').map((s) => s.stageId);
  const statusMessage =
    state === 'completed'
      ? `all ${stages.length} stages completed`
      : state === 'failed'
        ? `failed: ${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ', …' : ''}`
        : 'cancelled';
  const ended = { kind: 'graph.ended', actor: cancelActor, subject: graphId, data: { state, failed } };
  endGraphTask(tasks, graphId, { state, statusMessage, result: { graphId, state, stages: stages.length, failed } }, ended, events);
}
