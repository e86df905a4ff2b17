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
  const state = new Map(stages.map((s) => [s.id, s.state] as const));
  const byId = new Map(stages.map((s) => [s.id, s] as const));
  const skip: Decision['skip'] = [];
  let changed = true;
  while (changed) {
    changed = false;
    for (const s of stages) {
      if (state.get(s.id) !== 'pending') continue;
      const dead = s.dependsOn.find((d) => {
        const st = state.get(d);
        return st === 'failed' || st === 'cancelled' || st === 'skipped';
      });
      if (dead !== undefined) {
        skip.push({ id: s.id, upstream: dead });
        state.set(s.id, 'skipped');
        changed = true;
      }
    }
  }
  const anyFailed = [...state.values()].some((s) => s === 'failed');
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
  let busy = stages.filter(takesSlot).length;
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
      const dependents = stages.filter((d) => d.dependsOn.includes(s.id));
      return dependents.length > 0 && dependents.every((d) => !started.has(d.id) && isTerminalStage(state.get(d.id) as StageState));
    })
    .map((s) => s.id);
  return { start, skip, cancelPending, cancelRunning, stopServices };
}

/** For a pending stage: the dependencies it still waits on, or that it waits for a free slot. */
export function waitingOn(stage: SchedStage, stages: readonly SchedStage[], maxParallel: number): { stages: { id: string; state: StageState }[]; slot: boolean } {
  if (stage.state !== 'pending') return { stages: [], slot: false };
  const byId = new Map(stages.map((s) => [s.id, s] as const));
  const blockers = stage.dependsOn
    .map((d) => byId.get(d) as SchedStage)
    .filter((d) => !satisfies(d))
    .map((d) => ({ id: d.id, state: d.state }));
  return { stages: blockers, slot: blockers.length === 0 && stages.filter(takesSlot).length >= maxParallel };
}
