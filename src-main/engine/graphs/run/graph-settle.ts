import { decideOn } from '../../../common/graphs/graph-scheduler';
import { deriveGraphState, hasEnded, type StageErrorCode, type StageState } from '../../../common/graphs/stage-machine';
import type { EventInput } from '../../room/index';
import type { GraphRecord, GraphRepo, StageChange, StageRecord } from '../../store/graphs';
import type { TaskService } from '../../tasks/index';
import type { AttemptSupervisor } from './attempt-supervisor';
import { finishGraphTask } from '../graph-task';
import type { StageCache } from './stage-cache';

/** What settling a graph reads and writes through: the runtime's own parts. */
export interface SettleDeps {
  cache: StageCache;
  attempts: Pick<AttemptSupervisor, 'isLive' | 'dropRetry'>;
  repo: Pick<GraphRepo, 'setGraph'>;
  tasks: TaskService;
}

/** What one tick collects inside its transaction, and acts on after its commit. */
export interface TickWork {
  at: string;
  events: EventInput[];
  /** Ends a stage with a compare-and-set (its event and its log's close come with it); false when the row had moved on. */
  end: (s: StageRecord, expect: { state: StageState; attempt?: number }, state: StageState, code: StageErrorCode | null, extra?: StageChange) => boolean;
  toSpawn: StageRecord[];
  toEnd: { graphId: string; stageId: string; reason: 'cancel' | 'service-stop' }[];
  /** Stages that may start soon: their logs are made while the room waits. */
  soon: StageRecord[];
}

/**
 * One graph, inside the tick's transaction: the skips, cancels, starts and service stops the scheduler decides,
 * then the graph's derived state. `cancelledBy`: who asked to cancel the whole graph, if anyone. Returns whether
 * the graph ended.
 */
export function settleGraph(deps: SettleDeps, graph: GraphRecord, cancelledBy: string | undefined, work: TickWork): boolean {
  const { cache, attempts } = deps;
  const { at, events, end, toSpawn, toEnd, soon } = work;
  const stages = cache.stages(graph.id);
  const shape = cache.shape(graph.id);
  const byId = (id: string) => cache.stage(graph.id, id);
  const states = stages.map((s) => s.state);
  const d = decideOn(
    shape,
    { states, serving: stages.map((s) => s.spec.readiness !== undefined && s.ready) },
    { maxParallel: graph.maxParallel, onFailure: graph.onFailure, cancelling: cancelledBy !== undefined },
  );
  for (const k of d.skip) {
    const s = byId(k.id) as StageRecord;
    if (end(s, { state: 'pending' }, 'skipped', 'UPSTREAM_FAILED', { message: `skipped: ${k.upstream} did not complete` })) s.state = 'skipped';
  }
  const why = cancelledBy !== undefined ? `cancelled by ${cancelledBy}` : 'cancelled: another stage failed and the graph cancels the rest (onFailure: cancel-all)';
  for (const id of d.cancelPending) {
    const s = byId(id) as StageRecord;
    if (end(s, { state: 'pending' }, 'cancelled', 'CANCELLED', { message: why })) s.state = 'cancelled';
  }
  for (const id of d.cancelRunning) {
    const s = byId(id) as StageRecord;
    if (attempts.isLive(graph.id, id)) toEnd.push({ graphId: graph.id, stageId: id, reason: 'cancel' });
    else {
      // between attempts (waiting to retry, or about to): no process to signal, it just ends here
      attempts.dropRetry(graph.id, id);
      const i = toSpawn.findIndex((x) => x.graphId === graph.id && x.stageId === id);
      if (i >= 0) toSpawn.splice(i, 1);
      if (end(s, { state: 'running', attempt: s.attempt }, 'cancelled', 'CANCELLED', { message: why })) s.state = 'cancelled';
    }
  }
  for (const id of d.start) toSpawn.push(byId(id) as StageRecord);
  for (const id of d.stopServices) toEnd.push({ graphId: graph.id, stageId: id, reason: 'service-stop' });
  for (const id of d.soon) soon.push(byId(id) as StageRecord);
  // the graph's state as this tick leaves it: the stages as they are now (skips and cancels were applied
  // above) with those about to start counted running
  for (let i = 0; i < stages.length; i++) states[i] = (stages[i] as StageRecord).state;
  for (const id of d.start) states[shape.index.get(id) as number] = 'running';
  const state = deriveGraphState(states);
  if (state === graph.state && graph.startedAt !== null) return false;
  const ended = hasEnded(state);
  deps.repo.setGraph(graph.id, { state, startedAt: graph.startedAt ?? (state !== 'pending' ? at : undefined), endedAt: ended ? at : undefined });
  if (state !== graph.state) events.push({ kind: 'graph.state', actor: null, subject: graph.id, data: { state } });
  if (ended) finishGraphTask(deps.tasks, graph.id, state, stages, cancelledBy ?? null, events);
  return ended;
}
