import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { GraphSpec, StageSpec } from '../../common/graphs/graph-spec';
import type { GraphOutputs, StageView } from '../../common/methods/graphs';
import type { RemoteStagePort } from '../process/remote-stage';

/**
 * Stages placed on the room's hosts (docs/hosts.md): a stage takes its own `host`, else its graph's; the
 * caller must be allowed that host (the hosts feature says, through the port). What does not yet travel is
 * refused with what to do: a handoff's workspace, a terminal, a readiness condition.
 */
export function placeStage(caller: Caller, graph: GraphSpec, s: StageSpec, remote: RemoteStagePort | undefined): StageSpec | null {
  const host = s.host ?? graph.host;
  if (host === undefined) return null;
  if (!remote) throw new RoomError('UNAVAILABLE', `stage "${s.id}": this room places no stage on a host (it was opened read-only or without hosts): leave out host`);
  remote.check(caller, host);
  if (graph.handoffId !== undefined) {
    throw new RoomError('INVALID_INPUT', `stage "${s.id}": handoff ${graph.handoffId}'s worktree is on this machine: run its graph here (without host)`);
  }
  if (s.tty === true) throw new RoomError('INVALID_INPUT', `stage "${s.id}": a terminal stage (tty) runs on this machine only for now: leave out tty or host`);
  if (s.readiness !== undefined) {
    throw new RoomError('INVALID_INPUT', `stage "${s.id}": a long-running stage with readiness runs on this machine only for now: leave out readiness or host`);
  }
  return { ...s, host };
}

function marked(s: StageView, remote: RemoteStagePort | undefined): StageView {
  if (s.host === undefined) return s;
  return { ...s, hostReachable: remote?.reachable(s.host) !== false };
}

/** A status answer with each stage on a host marked reachable or not (an unreachable host's stages are unknown, not failed). */
export function markHosts<T extends GraphOutputs['tasks_status']>(status: T, remote: RemoteStagePort | undefined): T {
  if ('stages' in status) return { ...status, stages: status.stages.map((s) => marked(s, remote)) };
  if ('stage' in status) return { ...status, stage: marked(status.stage, remote) };
  return status;
}
