/**
 * A graph.stage event applied to the graph on screen, without reading the graph again: the stage's node takes
 * the event's state (with its readiness, retry wait and error), the pending stages' "waits on" follow from the
 * same rule the room's scheduler uses (common/graphs/graph-scheduler.ts), and the graph's progress is counted
 * again from the nodes. What an event does not carry (times, exit codes) is read for the stage the person has
 * open; a graph's own state change, and a link that came back, re-read everything.
 */
import type { EventView } from '../../../src-main/common/handoff-dto';
import type { GraphTopologyNode, GraphView, StageView } from '../../../src-main/common/methods/graphs';
import { STAGE_STATES, type StageState } from '../../../src-main/common/graphs/stage-machine';
import { waitingOnIn, type SchedStage } from '../../../src-main/common/graphs/graph-scheduler';

export interface Topology {
  graph: GraphView;
  stages: GraphTopologyNode[];
  order: string[];
}

export interface StageChange {
  graphId: string;
  stageId: string;
  state: StageState;
  attempt: number | null;
  errorCode: GraphTopologyNode['errorCode'] | undefined;
  ready: boolean;
  retrying: boolean;
}

/** The change a graph.stage event reports, or null when it is not one (or not in the shape the room writes). */
export function stageChangeOf(event: EventView): StageChange | null {
  if (event.kind !== 'graph.stage' || !event.data || typeof event.data !== 'object') return null;
  const d = event.data as Record<string, unknown>;
  if (typeof d.graphId !== 'string' || typeof d.stageId !== 'string' || !(STAGE_STATES as readonly unknown[]).includes(d.state)) return null;
  return {
    graphId: d.graphId,
    stageId: d.stageId,
    state: d.state as StageState,
    attempt: typeof d.attempt === 'number' ? d.attempt : null,
    errorCode: 'errorCode' in d ? (d.errorCode as GraphTopologyNode['errorCode']) : undefined,
    ready: d.ready === true,
    retrying: d.retrying === true,
  };
}

/**
 * The graph with stage changes applied in order, or null when one names a stage not in it (then read it
 * again). One pass over the nodes whatever the number of changes: a cancelled 10,000-stage graph sends 10,000
 * events, applied in a few batches, never one pass each.
 */
export function patchTopology(topology: Topology, changes: readonly StageChange[]): Topology | null {
  const index = new Map(topology.stages.map((s, i) => [s.id, i] as const));
  const nodes = topology.stages.slice();
  for (const change of changes) {
    const at = index.get(change.stageId);
    const before = at === undefined ? undefined : nodes[at];
    if (at === undefined || !before) return null;
    // a new attempt starts clean (the room clears its error); the ready and retry events keep what it had
    const errorCode = change.errorCode !== undefined ? change.errorCode : change.ready ? before.errorCode : change.state === 'running' ? null : before.errorCode;
    nodes[at] = { ...before, state: change.state, errorCode, ready: change.ready, retrying: change.retrying };
  }
  // a ready stage always had a readiness condition: that is all the scheduler's rule asks of it
  const sched: SchedStage[] = nodes.map((s) => ({ id: s.id, dependsOn: s.dependsOn, state: s.state, hasReadiness: s.ready, ready: s.ready }));
  const waiting = waitingOnIn(sched, topology.graph.maxParallel);
  const stages = nodes.map((s, i) => {
    if (s.state !== 'pending') return s.waitingOn === null ? s : { ...s, waitingOn: null };
    const next = waiting(sched[i] as SchedStage);
    return sameWaits(next, s.waitingOn) ? s : { ...s, waitingOn: next };
  });
  return { ...topology, graph: { ...topology.graph, progress: progressOf(stages) }, stages };
}

function sameWaits(a: GraphTopologyNode['waitingOn'], b: GraphTopologyNode['waitingOn']): boolean {
  if (a === null || b === null) return a === b;
  if (a.slot !== b.slot || a.stages.length !== b.stages.length) return false;
  return a.stages.every((w, i) => w.id === b.stages[i]?.id && w.state === b.stages[i]?.state);
}

/** The selected stage's details with the event's state (its times and exit are read again after). */
export function patchStageView(stage: StageView, change: StageChange): StageView {
  return {
    ...stage,
    state: change.state,
    attempt: change.attempt ?? stage.attempt,
    ready: change.ready,
    retrying: change.retrying,
    ...(change.errorCode !== undefined ? { errorCode: change.errorCode } : {}),
  };
}

/** Progress as the room counts it: done is every stage neither pending nor running. */
export function progressOf(stages: readonly { state: StageState }[]): GraphView['progress'] {
  const byState = Object.fromEntries(STAGE_STATES.map((s) => [s, 0])) as Record<StageState, number>;
  for (const s of stages) byState[s.state]++;
  return { done: stages.length - byState.pending - byState.running, total: stages.length, byState };
}
