import { RoomError } from '../../common/errors';
import type { AgentSandbox, SandboxRequest, SandboxState } from './agent-sandbox';
import type { Launch } from './sandbox-launch';

/**
 * Where a process runs: this machine. A shell on another host is not launched from here: the host's own room
 * node owns its PTYs (engine/hosts: shell_open with `host` goes to the node, whose launcher places it there, in
 * that host's sandbox), so a launch here is always local.
 */
export type ProcessHost = 'local';

/** Where and how one process runs: its host, and the OS sandbox it runs in (null: as it is). */
export interface Placement {
  host: ProcessHost;
  sandbox: Exclude<SandboxState['kind'], 'none'> | null;
}

/**
 * The one place that decides where and how a shell, a graph stage or an agent's client starts: an agent's
 * process runs in the OS sandbox (when this machine has one), the person's own as it is. Shells and stages
 * ask it; neither decides for itself. The room's own git asks `launchRoomProcess`: on this machine, as the room.
 */
/**
 * The room's own processes (its git on a handoff's repository): on this machine, as the room, with the clean
 * environment their caller built, never in an agent's sandbox (the room's git must write the person's checkout).
 * Asked here like every other start, so where a process runs is decided in this one module.
 */
export function launchRoomProcess(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Launch {
  return { file, args: [...args], env };
}

export class ProcessLauncher {
  constructor(private readonly sandbox: AgentSandbox) {}

  /** The placement of a process started for a participant of this role (undefined: no such participant). */
  placementFor(role: string | undefined): Placement {
    // only an agent's process asks whether this machine has a sandbox (finding out runs a probe)
    const kind = role === 'agent' ? this.sandbox.state.kind : 'none';
    return { host: 'local', sandbox: kind !== 'none' ? kind : null };
  }

  /** What to start for `request` placed at `placement`: the sandbox program around it, or the process as it is. */
  launch(placement: Placement, request: SandboxRequest): Launch {
    if (placement.host !== 'local') throw new RoomError('UNAVAILABLE', `processes run on this machine only (asked for host ${String(placement.host)})`);
    const { file, args, env } = request;
    return placement.sandbox === null ? { file, args, env } : this.sandbox.wrap(request);
  }
}
