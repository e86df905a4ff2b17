import type { FailurePolicy } from './graph-spec';
import { isTerminalStage, type StageState } from './stage-machine';

/** What the scheduler needs to know of a stage. `ready`: its readiness condition was met while it runs. */
export interface SchedStage {
  id: string;
  dependsOn: readonly string[];
  state: StageState;
  hasReadiness: boolean;
  ready: boolean;
}

export interface Decision {
  /** Pending stages to start now, in submission order. */
  start: string[];
  /** Pending stages that can never run: an upstream did not complete. */
  skip: { id: string; upstream: string }[];
  /** cancel-all after a failure: pending stages to mark cancelled, running ones to end. */
  cancelPending: string[];
  cancelRunning: string[];
  /** Ready long-running stages all of whose dependents have ended: nothing needs them any more. */
  stopServices: string[];
}

/** A dependency counts as satisfied when it completed, or when it runs and its readiness was met. */
export function satisfies(s: SchedStage): boolean {
  return s.state === 'completed' || (s.state === 'running' && s.hasReadiness && s.ready);
}

/** A running stage takes a slot unless it is a ready long-running stage (else a dev server would starve maxParallel 1). */
function takesSlot(s: SchedStage): boolean {
  return s.state === 'running' && !(s.hasReadiness && s.ready);
}

/**
 * The one scheduling decision, pure: given the stages' states, what to skip, cancel, start and stop. Skips
 * propagate through the whole graph at once, so one decision settles everything a failure implies.
 */
export function decide(stages: readonly SchedStage[], options: { maxParallel: number; onFailure: FailurePolicy; cancelling?: boolean }): Decision {
  // linear in stages + dependencies: it runs on every tick, and a graph may have 10,000 stages
  const state = new Map(stages.map((s) => [s.id, s.state] as const));
  const byId = new Map(stages.map((s) => [s.id, s] as const));
  const dependents = new Map<string, SchedStage[]>();
  for (const s of stages) {
    for (const d of s.dependsOn) {
      const list = dependents.get(d);
      if (list) list.push(s);
      else dependents.set(d, [s]);
    }
  }
  const isDead = (id: string) => {
    const st = state.get(id);
    return st === 'failed' || st === 'cancelled' || st === 'skipped';
  };
  const skip: Decision['skip'] = [];
  const newlySkipped: string[] = [];
  const trySkip = (s: SchedStage) => {
    if (state.get(s.id) !== 'pending') return;
    const dead = s.dependsOn.find(isDead);
    if (dead === undefined) return;
    skip.push({ id: s.id, upstream: dead });
    state.set(s.id, 'skipped');
    newlySkipped.push(s.id);
  };
  // one pass in submission order settles every dependency listed earlier; the worklist carries skips onwards
  for (const s of stages) trySkip(s);
  while (newlySkipped.length > 0) {
    for (const d of dependents.get(newlySkipped.pop() as string) ?? []) trySkip(d);
  }
  let anyFailed = false;
  for (const st of state.values()) if (st === 'failed') anyFailed = true;
  const cancelPending: string[] = [];
  const cancelRunning: string[] = [];
  if ((anyFailed && options.onFailure === 'cancel-all') || options.cancelling) {
    for (const s of stages) {
      if (state.get(s.id) === 'pending') {
        cancelPending.push(s.id);
        state.set(s.id, 'cancelled');
      } else if (state.get(s.id) === 'running') cancelRunning.push(s.id);
    }
    return { start: [], skip, cancelPending, cancelRunning, stopServices: [] };
  }
  let busy = 0;
  for (const s of stages) if (takesSlot(s)) busy++;
  const start: string[] = [];
  for (const s of stages) {
    if (busy >= options.maxParallel) break;
    if (state.get(s.id) !== 'pending') continue;
    if (s.dependsOn.every((d) => satisfies(byId.get(d) as SchedStage))) {
      start.push(s.id);
      busy++;
    }
  }
  const started = new Set(start);
  const stopServices = stages
    .filter((s) => s.state === 'running' && s.hasReadiness && s.ready)
    .filter((s) => {
      const deps = dependents.get(s.id) ?? [];
      return deps.length > 0 && deps.every((d) => !started.has(d.id) && isTerminalStage(state.get(d.id) as StageState));
    })
    .map((s) => s.id);
  return { start, skip, cancelPending, cancelRunning, stopServices };
}

/** For a pending stage: the dependencies it still waits on, or that it waits for a free slot. */
export function waitingOn(stage: SchedStage, stages: readonly SchedStage[], maxParallel: number): { stages: { id: string; state: StageState }[]; slot: boolean } {
  return waitingOnIn(stages, maxParallel)(stage);
}

/** `waitingOn` for many stages of one graph: the lookups are built once (a view of 10,000 stages stays linear). */
export function waitingOnIn(stages: readonly SchedStage[], maxParallel: number): (stage: SchedStage) => { stages: { id: string; state: StageState }[]; slot: boolean } {
  const byId = new Map(stages.map((s) => [s.id, s] as const));
  let busy = 0;
  for (const s of stages) if (takesSlot(s)) busy++;
  return (stage) => {
    if (stage.state !== 'pending') return { stages: [], slot: false };
    const blockers = stage.dependsOn
      .map((d) => byId.get(d) as SchedStage)
      .filter((d) => !satisfies(d))
      .map((d) => ({ id: d.id, state: d.state }));
    return { stages: blockers, slot: blockers.length === 0 && busy >= maxParallel };
  };
}
