import type { AgentClient, AgentClientId } from '../../common/agent-clients';
import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { AgentRunView } from '../../common/methods/agents';
import type { EngineContext } from '../room/index';
import type { ShellRegistry } from '../shells/index';
import { SHELLS_CHANGED } from '../shells/index';
import type { RemoteAgentPort, RoomForward } from '../hosts/index';
import type { AgentRun } from './agent-run';
import type { enlistAgent, Invoke } from './agent-task';
import type { WatchPolicy } from './agent-watch';
import { adoptedRun, keptHostRuns } from './host-runs';
import { startOnHost } from './remote-start';

/** What the agents feature hands its part for runs on hosts (agents-feature.ts). */
export interface HostAgentDeps {
  ctx: EngineContext;
  remote: RemoteAgentPort | undefined;
  runs: Map<string, AgentRun>;
  shells: ShellRegistry;
  commands: Map<string, string[]>;
  invoke: Invoke;
  enlist(operator: Caller, input: MethodInput<'agent_start'>, client: AgentClient, cwd: string): ReturnType<typeof enlistAgent>;
  /** Watches a run for stalls and limits with its policies (given: an adopted run's kept ones); the policies. */
  watchRun(shellId: string, participant: string, client: AgentClient, input: MethodInput<'agent_start'>, policy?: WatchPolicy): WatchPolicy;
  unwatch(shellId: string): void;
  ended(shellId: string, participant: string, client: AgentClientId, exit: { exitCode: number | null; signal: string | null }, host?: string): void;
  view(run: AgentRun, caller: Caller): AgentRunView;
  /** This process's own endpoint once it serves, else null. */
  roomUrl(): string | null;
  defaults(): WatchPolicy;
}

/**
 * Agents started on the room's hosts: a run of the room's like any other (its participant, its handoff, its
 * events, its watch, agent_stop), whose terminal is on the host (remote-start.ts). It ends when its terminal there
 * ends: the forward goes. It is kept (host-runs.ts) so that a room that restarted takes it up again as the same run.
 */
export function hostAgents(d: HostAgentDeps) {
  const { ctx, remote, runs } = d;
  const kept = keptHostRuns(ctx);
  /** Set while the room closes: its runs on hosts go on there, for the next room to take up. */
  let closing = false;

  /** One event of the agents feature's, by the room (nothing is left to record into once the room closed). */
  function record(kind: string, subject: string, data: Record<string, unknown>): void {
    try {
      ctx.commit(() => ({ value: undefined, events: [{ kind, actor: null, subject, data }] }));
    } catch {
      // the room closed meanwhile
    }
  }

  /**
   * A run on a host followed to its end there: then its forward goes, its end is recorded, and it is no longer
   * kept. Not when the room closes: it goes on there, and the next room takes it up again (`renewFirst`: its
   * forward asked for again at once).
   */
  function follow(port: RemoteAgentPort, run: AgentRun, forward: RoomForward, renewFirst: boolean): void {
    const { shellId, participant, host } = run;
    void port.waitEnd(host as string, shellId, participant, forward, { renewFirst }).then(async (exit) => {
      if (closing) return;
      d.unwatch(shellId);
      await forward.cancel();
      d.ended(shellId, participant, run.client.id, exit, host as string);
      runs.delete(shellId);
      kept.remove(shellId);
      d.shells.changes.fire(SHELLS_CHANGED);
    });
  }

  async function start(operator: Caller, input: MethodInput<'agent_start'>, client: AgentClient, url: string, host: string): Promise<MethodOutputs['agent_start']> {
    if (!remote) throw new RoomError('UNAVAILABLE', 'this room process places no work on hosts');
    remote.allowed(operator, host);
    if (input.task !== undefined && input.repo !== undefined && input.hostRepo === undefined) {
      throw new RoomError('INVALID_INPUT', `a task in a repository on host ${host} needs hostRepo: the absolute path of ${host}'s own clone of ${input.repo}`);
    }
    const { name, token, task } = await d.enlist(operator, input, client, input.cwd ?? '.');
    let started: Awaited<ReturnType<typeof startOnHost>>;
    try {
      if (task && task.host !== undefined && task.host !== host) throw new RoomError('INVALID_INPUT', `handoff ${task.handoffId}'s worktree is ${task.host ? `on host ${task.host}` : 'on this machine'}, not on ${host}: start its agent there`);
      started = await startOnHost(remote, { host, client, input, roomUrl: url, token, name, task, cwd: task?.cwd ?? input.cwd ?? '.' });
    } catch (error) {
      if (task) await d.invoke(operator, 'handoff_cancel', { handoffId: task.handoffId, reason: `its agent could not start on ${host}: ${(error as Error).message}` }).catch(() => undefined);
      if (input.participant === undefined && input.continues === undefined) await d.invoke(operator, 'participant_revoke', { name }).catch(() => undefined);
      throw error;
    }
    const { shell, forward } = started;
    d.shells.changes.fire(SHELLS_CHANGED);
    if (client.id === 'command' && input.command) d.commands.set(name, [...input.command]);
    // its client's version, as the host's node asked it there
    const version = shell.agent?.version ?? null;
    const run: AgentRun = { shellId: shell.id, client, participant: name, version, cwd: shell.cwd, startedAt: ctx.now(), runDir: '', handoffId: task?.handoffId ?? null, stoppedBy: null, startedBy: operator, input, host, forward };
    runs.set(shell.id, run);
    const policy = d.watchRun(shell.id, name, client, input);
    kept.add(run, forward, policy);
    follow(remote, run, forward, false);
    // its envelope, from its first moment: wall-clock and idle read on the room's copy of its terminal, tokens and
    // cost as its client reports them through the same forward
    if (input.envelope) {
      try {
        await d.invoke(operator, 'envelope_set', { scope: 'agent', target: shell.id, ...input.envelope });
      } catch (error) {
        // a run asked for with a ceiling never goes on without one
        run.stoppedBy = operator.name;
        await d.invoke(operator, 'shell_close', { shellId: shell.id }).catch(() => undefined);
        throw error;
      }
    }
    ctx.commit(() => ({
      value: undefined,
      events: [{ kind: 'agent.started', actor: operator.name, subject: name, data: { client: client.id, shellId: shell.id, cwd: shell.cwd, version, host, ...(task ? { handoffId: task.handoffId } : {}) } }],
    }));
    return { agent: d.view(run, operator) };
  }

  /**
   * The runs on hosts the room's process before this one had started: the same runs again (their terminals went on
   * there, and were adopted as the room's shells), their forwards asked for again once this room serves.
   */
  function adoptKept(): void {
    if (!remote) return;
    for (const row of kept.all()) {
      const forward = remote.forwardAgain(row.host, row.participant, { port: row.forwardPort, roomPort: row.roomPort }, d.roomUrl, (roomPort) => {
        kept.update(row.shellId, { roomPort });
        record('agent.adopted', row.participant, { shellId: row.shellId, host: row.host, client: row.client });
      });
      const adopted = adoptedRun(ctx, row, forward, d.defaults());
      if (!adopted) {
        void forward.cancel();
        kept.remove(row.shellId);
        continue;
      }
      runs.set(row.shellId, adopted.run);
      d.watchRun(row.shellId, row.participant, adopted.run.client, adopted.run.input, adopted.policy);
      follow(remote, adopted.run, forward, true);
    }
  }

  return {
    start,
    adoptKept,
    /** A run's new policies (agent_watch), kept for a room that restarts. */
    keepPolicy: (shellId: string, policy: WatchPolicy) => kept.update(shellId, { policy }),
    close(): void {
      closing = true;
    },
  };
}
