import type { AgentClientId } from '../../common/agent-clients';
import type { ShellView } from '../../common/methods/shells';
import type { PtyShell } from '../shells/index';

/** The room's endpoint forwarded to a host's loopback for one run (engine/hosts/remote-agents.ts). */
export interface RoomForward {
  /** The endpoint as the run reaches it there: http://127.0.0.1:PORT/mcp on the host. */
  url: string;
  /** The port of the host's loopback it listens on (the run's configuration names it). */
  port: number;
  /** The room's port it leads to (changes when a room that restarted takes it up again). */
  roomPort: number;
  /** Ends the forward (the room refuses its Host header again); never throws. */
  cancel(): Promise<void>;
  /**
   * Asks for the same forward again (the link's connection was replaced: `ssh -O exit`, a dropped network, and
   * the forward went with the old one); whether it stands now. Never throws.
   */
  renew(): Promise<boolean>;
}

/** What the host's node needs to start the client there (server/node-agents.ts). */
export interface RemoteAgentOpen {
  client: AgentClientId;
  /** The program of a "command" client (found on the host's login PATH, or a full path there). */
  program?: string;
  url: string;
  /** The room's arguments after the client's own per-run ones (telemetry, the command's, the person's, the prompt). */
  args: string[];
  /** The run's variables (the token among them): into the terminal's environment there, nowhere else. */
  env: Record<string, string>;
  cwd: string;
  name: string;
  cols?: number;
  rows?: number;
  resume?: boolean;
  prompted?: boolean;
}

/**
 * Agents started on the room's hosts (agent_start with host): the hosts feature implements it over the host's
 * link and node; engine.ts hands it to the agents feature.
 */
export interface RemoteAgentPort {
  /** Refuses a host this caller may not place work on. */
  allowed(caller: { role: string }, host: string): void;
  /** Forwards the room's endpoint (`roomUrl`, on this machine's loopback) to the host's loopback for `participant`'s run. */
  forward(host: string, roomUrl: string, participant: string): Promise<RoomForward>;
  /**
   * A run's forward taken up again by a room that restarted: its Host accepted for `participant` from now on; the
   * forward itself is asked for at the first renew (once the room serves: `roomUrl` reads null until then), the one
   * the room before left on the link's connection (to `was.roomPort`) cancelled first. `stood`: it stands, now to
   * `roomPort`.
   */
  forwardAgain(host: string, participant: string, was: { port: number; roomPort: number }, roomUrl: () => string | null, stood: (roomPort: number) => void): RoomForward;
  /** A handoff's worktree on the host: its HEAD and its commits past `since`, read there by its node (null: no HEAD, or not reached). */
  commitsPast(host: string, work: { hostRepo: string; handoffId: string; since: string }): Promise<{ head: string; commits: number } | null>;
  /** Starts the client on the host as `participant` (its shell there, known to the room as that participant's). */
  open(host: string, participant: string, open: RemoteAgentOpen): Promise<ShellView>;
  /** The run's shell as last seen (null: not a shell on a host). */
  view(shellId: string): ShellView | null;
  /** The room's copy of the run's terminal (its screen and status, read here), or null: not known (any more). */
  copy(shellId: string): PtyShell | null;
  /** Types keys into the run's terminal there, as the room (a watch's policy, an envelope's interrupt). */
  type(shellId: string, text: string): Promise<void>;
  /**
   * One look at the process trees of runs' terminals on `host` (their processes and CPU time, read there by its
   * node), by shell id; null: the host could not be asked now.
   */
  trees(host: string, shellIds: string[]): Promise<Map<string, { processes: string; cpuMs: number }> | null>;
  /**
   * Resolves when the run's shell ended on the host (or was closed); a host out of reach is waited for, and when
   * it is back the run's forward is asked for again.
   */
  waitEnd(host: string, shellId: string, participant: string, forward: RoomForward, options?: { renewFirst?: boolean }): Promise<{ exitCode: number | null; signal: string | null }>;
}
