import { AGENT_CLIENTS, type AgentClientId } from '../../common/agent-clients';
import type { Caller } from '../../common/dto';
import type { EngineContext } from '../room/index';
import { HostAgentRunRepo, type HostAgentRunRecord } from '../store/host-agent-runs';
import { toCaller } from '../store/participants';
import type { RoomForward } from '../hosts/index';
import type { AgentRun } from './agent-run';
import type { WatchPolicy } from './agent-watch';

/**
 * The agent runs the room started on its hosts, kept (host_agent_runs) so that a room that restarted takes each
 * up again as the same run: its terminal there goes on (the host's node keeps it, and the room adopts it as it
 * does every shell on a host), its participant and token are the same, and its forward is asked for again on the
 * same port of the host's loopback (its client's configuration names it), now to this room's port.
 */
export function keptHostRuns(ctx: EngineContext) {
  const repo = new HostAgentRunRepo(ctx.room.db);
  const write = (fn: () => void) => {
    try {
      ctx.commit(() => ({ value: fn(), events: [] }));
    } catch {
      // the room is closing (or its disk is full): the row is looked at again by the next room
    }
  };
  return {
    all: (): HostAgentRunRecord[] => repo.all(),
    add(run: AgentRun, forward: RoomForward, policy: WatchPolicy): void {
      write(() =>
        repo.add({
          shellId: run.shellId,
          host: run.host as string,
          participant: run.participant,
          client: run.client.id,
          cwd: run.cwd,
          startedAt: run.startedAt,
          startedBy: run.startedBy.name,
          handoffId: run.handoffId,
          forwardPort: forward.port,
          roomPort: forward.roomPort,
          version: run.version,
          policy: JSON.stringify(policy),
        }),
      );
    },
    update(shellId: string, change: { roomPort?: number; version?: string | null; policy?: WatchPolicy }): void {
      const { policy, ...rest } = change;
      write(() => repo.update(shellId, { ...rest, ...(policy ? { policy: JSON.stringify(policy) } : {}) }));
    },
    remove(shellId: string): void {
      write(() => repo.remove(shellId));
    },
  };
}

/**
 * A kept run as the room that restarted knows it again (null: its client is not one this room knows). Who started
 * it acts for it again (a restart on a stall); the operator, if that participant is gone. A `command` run's
 * program was never kept: a restart of it is refused, and said.
 */
export function adoptedRun(ctx: EngineContext, row: HostAgentRunRecord, forward: RoomForward, defaults: WatchPolicy): { run: AgentRun; policy: WatchPolicy } | null {
  if (!Object.hasOwn(AGENT_CLIENTS, row.client)) return null;
  const client = AGENT_CLIENTS[row.client as AgentClientId];
  const by = ctx.room.participants.byName(row.startedBy) ?? ctx.room.participants.operator();
  if (!by) return null;
  const startedBy: Caller = toCaller(by);
  let policy = defaults;
  try {
    policy = { ...defaults, ...(JSON.parse(row.policy) as Partial<WatchPolicy>) };
  } catch {
    // the room's defaults
  }
  const run: AgentRun = {
    shellId: row.shellId,
    client,
    participant: row.participant,
    version: row.version,
    cwd: row.cwd,
    startedAt: row.startedAt,
    runDir: '',
    handoffId: row.handoffId,
    stoppedBy: null,
    startedBy,
    input: { client: client.id, host: row.host, cwd: row.cwd } as AgentRun['input'],
    host: row.host,
    forward,
  };
  return { run, policy };
}
