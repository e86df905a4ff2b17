import type { StageExit } from '../../common/graphs/stage-machine';

/**
 * The seam where a graph stage leaves this machine: a stage placed on a host of the room is not launched here
 * (launcher.ts places only local processes) but handed to the host's room node, which runs it with its own
 * runner and journal. The graphs' runtime stays the scheduler (it starts a remote stage when its dependencies
 * are done) and asks this port; the hosts feature implements it (engine/hosts/remote-stages.ts). The port knows
 * nothing of graphs: a stage is a command, a key and a log file to mirror into.
 */

/** How a remote attempt ended, as the local runner reads an attempt's end (stage-runner.ts's AttemptEnd). */
export interface RemoteStageEnd extends StageExit {
  spawnError?: string;
  lost?: string;
  logError?: string;
}

/** What runs on the host: the stage's own fields that travel (its cwd is taken from the host account's home). */
export interface RemoteStageSpec {
  command: string | string[];
  cwd?: string | undefined;
  env?: Record<string, string> | undefined;
  timeoutMs?: number | undefined;
  retries?: number | undefined;
  retryBackoffMs?: number | undefined;
  killGraceMs?: number | undefined;
}

export interface RemoteStageRequest {
  host: string;
  /**
   * The stage's one run, named: the node runs each key once (asked again, it answers with the run it has), so a
   * room that restarted, or a link that dropped while it asked, never runs a stage twice.
   */
  key: string;
  /** Who submitted the graph: a participant of this room (an agent's stage runs as that agent on the node, in its sandbox). */
  owner: string;
  /** The owner's role here: an operator's stage runs as the node's operator. */
  ownerRole: string | undefined;
  spec: RemoteStageSpec;
  /** The stage's log here: a byte-for-byte copy of the node's, appended to from where it ends (after a restart too). */
  logPath: string;
  /** The local log grew (live readers wait on it). */
  grew(): void;
}

export interface RemoteStageHandle {
  /** Resolves when the node says the stage ended (never while its host is unreachable: its state is unknown then). */
  done: Promise<RemoteStageEnd>;
  /**
   * Cancels it on the host (the node's own SIGINT, grace, SIGTERM, SIGKILL of its tree). True: the node took
   * it (its end follows at once); false: the host is unreachable or it is not placed yet (asked when it is).
   */
  end(reason: NonNullable<StageExit['endedBy']>): Promise<boolean>;
  /** Stops following it here (the room closing): it goes on there, and the next room adopts it by its key. */
  detach(): void;
}

export interface RemoteStagePort {
  /** Refuses a host this caller may not place work on (not a host of the room; for an agent, one the person keeps). */
  check(caller: { name: string; role: string }, host: string): void;
  /** Places the stage on its host (or finds it there, by key) and follows it to its end. */
  start(request: RemoteStageRequest): RemoteStageHandle;
  /** Whether the host's node can be reached now (null: not tried yet). */
  reachable(host: string): boolean | null;
}
