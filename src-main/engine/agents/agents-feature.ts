import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_CLIENTS, AGENT_ENV, AGENT_UNSET_ENV, type AgentClient, type AgentClientId } from '../../common/agent-clients';
import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { AgentRunView } from '../../common/methods/agents';
import type { EngineContext, Feature } from '../room/index';
import { createPrivateFile, ensureOwnDir, isInside } from '../core/fs-safe';
import { findOnPath } from '../process/find-on-path';
import type { PtyShell, ShellRegistry } from '../shells/index';
import { viewOf } from '../shells/index';
import { agentRunsFolder } from '../core/room-paths';
import { enlistAgent, reviewOf, type Invoke } from './agent-task';
import { toCaller } from '../store/participants';
import { againInput, earlierRuns, watchRuns, type AgentRun } from './agent-run';
import { clientVersions } from './client-versions';
import { policyFrom, watchDefaults, watchMethods } from './watch-methods';
import type { WatchPolicy } from './agent-watch';
import { SHELL_STATUS_RULES } from '../../common/shell-status-rules';
import type { RemoteAgentPort } from '../hosts/index';
import { hostAgents } from './host-agents';
export type { Invoke } from './agent-task';

type AgentMethods = 'agent_clients' | 'agent_start' | 'agent_list' | 'agent_stop' | 'agent_complete' | 'agent_watch' | 'agent_watch_defaults' | 'agent_limit';

/** A live run the room started, as other features may know it (the spend feature's envelopes, through engine.ts). */
export interface AgentRunRef {
  shellId: string;
  participant: string;
  client: AgentClientId;
  handoffId: string | null;
  startedAt: string;
  /** Its terminal as the room reads it (a run on a host: the room's copy of it), or null once it is gone. */
  terminal(): PtyShell | null;
  /** Types the room's keys into it (a run on a host: sent there). */
  type(bytes: string): void;
}

/**
 * Agents started in the room. Each run: the client found on the PATH, a participant of its own (or the one
 * named, with a new token), a folder of run files (0600, in the runner's data folder, removed when the
 * terminal ends; none holds the token), and a terminal opened as that participant (so it runs in the agent
 * sandbox, and its calls are its own) with the client's per-run configuration and the token in its
 * environment only. Everything that changes the room goes through Engine.call (`invoke`).
 */
export function agentsFeature(ctx: EngineContext, shells: ShellRegistry, invoke: Invoke, authenticate: (token: string) => Caller | null, remote?: RemoteAgentPort): Feature<AgentMethods> & { liveRuns(): AgentRunRef[] } {
  const runs = new Map<string, AgentRun>();
  /** Each "command" participant's last program and arguments (kept in memory only: they are the person's own). */
  const commands = new Map<string, string[]>();
  const runsRoot = agentRunsFolder(ctx.room.paths.dataDir);
  const defaults = watchDefaults(ctx);
  // stalls and usage limits of the runs (agent-watch.ts), and the person's policy for each
  const watch = watchRuns(ctx, runs, shells, (id) => restart(id), remote);
  /** This process's own endpoint, once it serves (commonroom serve, the app); null before. */
  const roomUrl = (): string | null => {
    const runner = ctx.room.runningProcess();
    return runner && runner.pid === process.pid && runner.endpoint ? new URL('/mcp', runner.endpoint).toString() : null;
  };

  const viewOfRun = (run: AgentRun, caller: Caller): AgentRunView => ({
    shellId: run.shellId,
    client: run.client.id,
    label: run.client.label,
    participant: run.participant,
    version: run.version,
    cwd: run.cwd,
    startedAt: run.startedAt,
    // a run on a host: its shell there as last seen (shell_list reads it afresh)
    shell: run.host ? (remote?.view(run.shellId) ?? viewOf(shells.get(caller, run.shellId))) : viewOf(shells.get(caller, run.shellId)),
    ...(run.host ? { host: run.host } : {}),
    handoffId: run.handoffId,
    review: null,
    watch: watch.view(run.shellId, defaults()),
  });

  // the agent CLIs on the PATH, each one's version asked once per install
  const { cachedVersion, clients } = clientVersions();

  const enlist = (operator: Caller, input: MethodInput<'agent_start'>, client: AgentClient, cwd: string) => enlistAgent(ctx, invoke, authenticate, operator, input, client, cwd);

  async function start(operator: Caller, input: MethodInput<'agent_start'>): Promise<MethodOutputs['agent_start']> {
    const client = AGENT_CLIENTS[input.client as AgentClientId];
    const url = roomUrl();
    if (!url) throw new RoomError('CONFLICT', 'this room is not serving MCP (start it with "commonroom serve" or the app): an agent would have nothing to connect to');
    if (client.id === 'command' && !input.command) throw new RoomError('INVALID_INPUT', 'client "command" needs command: the program and its arguments');
    if (client.id !== 'command' && input.command) throw new RoomError('INVALID_INPUT', `command is for client "command"; ${client.label} is found on the PATH as ${client.program}`);
    if (input.task === undefined && (input.repo !== undefined || input.base !== undefined || input.continues !== undefined)) {
      throw new RoomError('INVALID_INPUT', 'repo, base and continues are for a task: give task too, or leave them out');
    }
    if (input.hostRepo !== undefined && (input.host === undefined || input.task === undefined || input.repo === undefined)) {
      throw new RoomError('INVALID_INPUT', "hostRepo is the host's clone for a task's worktree there: give task, repo and host with it");
    }
    // on a host: one the person allowed, and a follow-up goes on where the rejected work is
    const continuedOn = input.continues !== undefined && input.host === undefined ? ((await invoke(operator, 'handoff_get', { handoffId: input.continues })).handoff.workspace?.host ?? null) : null;
    const host = input.host ?? continuedOn;
    if (host !== null) return there.start(operator, input, client, url, host);
    const program = client.program ?? (input.command?.[0] as string);
    const file = findOnPath(program, process.env.PATH ?? '');
    if (!file) {
      throw new RoomError('NOT_FOUND', `${client.label} (${program}) is not on the PATH of the room process${client.install ? `: install it with "${client.install}", then start the room again` : ': give its full path'}`);
    }
    const roomFolder = path.dirname(ctx.room.location.markdownPath);
    const dataDir = path.resolve(ctx.room.paths.dataDir);
    if (input.cwd === undefined && isInside(dataDir, roomFolder)) {
      // the default room lives in Commonroom's data folder, which agents cannot write: an agent started there could do nothing
      throw new RoomError('INVALID_INPUT', `say which folder the agent works in (cwd): this room's own folder, ${roomFolder}, is in Commonroom's data folder, which agents cannot write`);
    }
    let cwd = path.resolve(roomFolder, input.cwd ?? '.');
    if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) throw new RoomError('INVALID_INPUT', `cwd ${cwd} is not an existing folder`);
    const version = await cachedVersion(file, client.versionArgs);

    const { name, token, agentCaller, task } = await enlist(operator, input, client, cwd);
    if (task) cwd = task.cwd;

    // its run files: 0600 in a 0700 folder of the runner's; they name the token's variable, never the token
    // (made without following links: a link planted as agent-runs/ is replaced, one inside refused)
    ensureOwnDir(runsRoot);
    const runDir = path.join(runsRoot, randomBytes(8).toString('hex'));
    fs.mkdirSync(runDir, { mode: 0o700 });
    const plan = client.plan(url, (f) => path.join(runDir, f));
    try {
      for (const f of plan.files) createPrivateFile(path.join(runDir, f.name), f.content);
    } catch (error) {
      fs.rmSync(runDir, { recursive: true, force: true });
      throw error;
    }
    // its usage metrics to the room's OTLP door, the way the client documents it; the token in the environment only
    const telemetry = client.telemetry?.(new URL('/otlp', url).toString()) ?? { args: [], env: {}, headers: [] };
    const otlpHeaders = Object.fromEntries(telemetry.headers.map((name) => [name, `Authorization=Bearer ${token}`]));
    const env = { ...plan.env, ...telemetry.env, ...otlpHeaders, [AGENT_ENV.url]: url, [AGENT_ENV.token]: token, [AGENT_ENV.name]: name, ...(task ? { ...task.env, [AGENT_ENV.task]: task.prompt, [AGENT_ENV.handoff]: task.handoffId } : {}) };
    const prompted = task !== null && client.prompt !== undefined;
    let args = [...plan.args, ...telemetry.args, ...(client.id === 'command' ? (input.command ?? []).slice(1) : []), ...(input.args ?? []), ...(task && client.prompt ? client.prompt(task.prompt) : [])];
    // its most recent conversation in that folder, where the client can go on with one (with a prompt too)
    if (input.resume && client.resume) args = client.resume(args, prompted) ?? args;
    let shellId: string;
    try {
      const session = shells.open(agentCaller, {
        name: client.id === 'command' ? path.basename(file) : client.label,
        cwd,
        shell: file,
        args,
        env,
        unsetEnv: AGENT_UNSET_ENV,
        ...(input.cols ? { cols: input.cols } : {}),
        ...(input.rows ? { rows: input.rows } : {}),
        agent: { client: client.id, label: client.label, participant: name, version },
        runFolder: runDir,
      });
      shellId = session.id;
      const id = session.id;
      void session.waitExit().then((exit) => {
        watch.remove(id);
        fs.rmSync(runDir, { recursive: true, force: true });
        ended(id, name, client.id, exit);
      });
    } catch (error) {
      fs.rmSync(runDir, { recursive: true, force: true });
      if (task) await invoke(operator, 'handoff_cancel', { handoffId: task.handoffId, reason: `its agent could not start: ${(error as Error).message}` }).catch(() => undefined);
      throw error;
    }
    if (client.id === 'command' && input.command) commands.set(name, [...input.command]);
    const run: AgentRun = { shellId, client, participant: name, version, cwd, startedAt: ctx.now(), runDir, handoffId: task?.handoffId ?? null, stoppedBy: null, startedBy: operator, input };
    runs.set(shellId, run);
    if (input.envelope) {
      try {
        await invoke(operator, 'envelope_set', { scope: 'agent', target: shellId, ...input.envelope });
      } catch (error) {
        // a run asked for with a ceiling never goes on without one
        run.stoppedBy = operator.name;
        await invoke(operator, 'shell_close', { shellId }).catch(() => undefined);
        throw error;
      }
    }
    watchRun(shellId, name, client, input);
    ctx.commit(() => ({
      value: undefined,
      events: [{ kind: 'agent.started', actor: operator.name, subject: name, data: { client: client.id, shellId, cwd, version, ...(task ? { handoffId: task.handoffId } : {}) } }],
    }));
    return { agent: viewOfRun(run, operator) };
  }

  /** Its stalls and usage limits watched, with its policies (agent-watch.ts): here, or on its host through the room's copy of its terminal. */
  function watchRun(shellId: string, participant: string, client: AgentClient, input: MethodInput<'agent_start'>, policy = policyFrom(defaults(), input)): WatchPolicy {
    const screen = SHELL_STATUS_RULES[client.id];
    watch.add({ shellId, participant, interrupt: client.interrupt, continueText: client.continueText, limitRules: screen?.limited ?? [] }, policy);
    return policy;
  }

  // agents on hosts (host-agents.ts): started there, followed to their end, kept for a room that restarts
  const there = hostAgents({ ctx, remote, runs, shells, commands, invoke, enlist, watchRun, unwatch: (id) => watch.remove(id), ended, view: (run, caller) => viewOfRun(run, caller), roomUrl, defaults });
  there.adoptKept();

  /**
   * A stalled run started again as it was started, going on with its conversation (its client's resume
   * arguments), as the same participant, on the same handoff, in the same folder; its old terminal ends first.
   */
  async function restart(shellId: string): Promise<string> {
    const run = runs.get(shellId);
    if (!run) throw new RoomError('NOT_FOUND', `no agent the room started runs in shell ${shellId}`);
    // a command run on a host taken up again after a restart: its program was not kept (it is the person's own)
    if (run.client.id === 'command' && !run.input.command) throw new RoomError('CONFLICT', `${run.participant}'s program was not kept when the room restarted: it is left running; stop it and start it again yourself`);
    const again = againInput(run, watch.policyOf(shellId) ?? defaults(), viewOfRun(run, run.startedBy).shell);
    run.stoppedBy = 'commonroom';
    await invoke(run.startedBy, 'shell_close', { shellId });
    runs.delete(shellId);
    const { agent } = await start(run.startedBy, again);
    const next = runs.get(agent.shellId);
    if (next) next.handoffId = run.handoffId;
    return agent.shellId;
  }

  /** Activity's record of the run's end: by itself (its exit), or stopped by someone (agent_stop). */
  function ended(shellId: string, participant: string, client: AgentClientId, exit: { exitCode: number | null; signal: string | null }, host?: string): void {
    const stoppedBy = runs.get(shellId)?.stoppedBy ?? null;
    try {
      ctx.commit(() => ({
        value: undefined,
        events: [{ kind: 'agent.ended', actor: stoppedBy ?? participant, subject: participant, data: { client, shellId, exitCode: exit.exitCode, signal: exit.signal, stopped: stoppedBy !== null, ...(host ? { host } : {}) } }],
      }));
    } catch {
      // the room closed with its runner (shells end with it): nothing is left to record into
    }
  }

  function live(caller: Caller): AgentRunView[] {
    const out: AgentRunView[] = [];
    for (const run of runs.values()) {
      try {
        out.push(viewOfRun(run, caller));
      } catch {
        runs.delete(run.shellId); // its terminal was closed and let go
      }
    }
    return out;
  }

  const watchHandlers = watchMethods(ctx, watch, (caller, shellId) => {
    const run = runs.get(shellId);
    if (!run) throw new RoomError('NOT_FOUND', `no agent the room started runs in shell ${shellId}: see "ce agent list"`);
    return viewOfRun(run, caller);
  });

  return {
    name: 'agents',
    liveRuns: () => [...runs.values()].map((r) => ({ shellId: r.shellId, participant: r.participant, client: r.client.id, handoffId: r.handoffId, startedAt: r.startedAt, terminal: () => watch.terminal(r.shellId), type: (bytes: string) => watch.typeInto(r.shellId, bytes) })),
    handlers: {
      ...watchHandlers,
      // a run on a host keeps its new policies for a room that restarts
      agent_watch: async (caller, input) => {
        const out = await watchHandlers.agent_watch(caller, input);
        if (runs.get(input.shellId)?.host) there.keepPolicy(input.shellId, { stallMs: out.agent.watch.stallMs, onStall: out.agent.watch.onStall, onLimit: out.agent.watch.onLimit });
        return out;
      },
      agent_clients: async () => ({ clients: await clients() }),
      agent_start: start,
      agent_list: async (caller) => {
        const agents = await Promise.all(live(caller).map(async (a) => (a.handoffId && a.shell.alive ? { ...a, review: await reviewOf(invoke, caller, a.handoffId, a.shell.status.state === 'idle', remote) } : a)));
        return { agents, earlier: earlierRuns(ctx, new Set(agents.map((a) => a.participant)), commands) };
      },
      agent_complete: async (caller, input) => {
        // a live run the room started on this handoff: the person completes it for the agent ("ready for review?")
        const run = [...runs.values()].find((r) => r.handoffId === input.handoffId);
        if (!run) throw new RoomError('NOT_FOUND', `no agent the room started works on handoff ${input.handoffId} now: its assignee completes it (handoff_complete), or cancel it`);
        const record = ctx.room.participants.byName(run.participant);
        if (!record || record.revokedAt !== null) throw new RoomError('CONFLICT', `${run.participant}'s token was revoked: it can no longer complete handoff ${input.handoffId}; cancel it instead`);
        const { handoff } = await invoke(toCaller(record), 'handoff_complete', { handoffId: input.handoffId, result: input.result });
        ctx.commit(() => ({ value: undefined, events: [{ kind: 'agent.completed_for', actor: caller.name, subject: run.participant, data: { handoffId: input.handoffId, shellId: run.shellId } }] }));
        return { handoff };
      },
      agent_stop: async (caller, input) => {
        const run = runs.get(input.shellId);
        if (!run) throw new RoomError('NOT_FOUND', `no agent the room started runs in shell ${input.shellId}: see "ce agent list"`);
        const before = viewOfRun(run, caller);
        run.stoppedBy = caller.name;
        await invoke(caller, 'shell_close', { shellId: run.shellId });
        runs.delete(run.shellId);
        let revoked = false;
        if (input.revoke) revoked = (await invoke(caller, 'participant_revoke', { name: run.participant })).changed;
        return { agent: { ...before, shell: { ...before.shell, alive: false } }, revoked };
      },
    },
    async close() {
      there.close();
      watch.close();
      for (const run of runs.values()) if (run.runDir) fs.rmSync(run.runDir, { recursive: true, force: true });
      // a run on a host: its terminal goes on there (the node keeps it), but the room it reached is gone
      const forwards = [...runs.values()].flatMap((r) => (r.forward ? [r.forward.cancel()] : []));
      runs.clear();
      await Promise.all(forwards);
    },
  };
}
