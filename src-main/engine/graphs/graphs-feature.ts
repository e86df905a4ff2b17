import fs from 'node:fs';
import { waitOnFeed, type RoomEvent } from '../core/event-bus';
import path from 'node:path';
import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { validateGraph } from '../../common/graphs/graph-validate';
import { hasEnded, isTerminalStage, type GraphState } from '../../common/graphs/stage-machine';
import { retryPolicyOf } from '../../common/graphs/retry-policy';
import type { EngineContext, Feature } from '../room/index';
import type { TaskService } from '../tasks/index';
import type { TaskLogs } from '../tasks/index';
import type { StageTerminalHost } from '../terminal/stage-terminal';
import { ensurePrivateDir } from '../core/fs-safe';
import { GraphRepo } from '../store/graphs';
import { spoolEnded } from './logs/artifact-store';
import { GraphRuntime } from './run/graph-runtime';
import { graphView, listOf, stageLogOffset, stageTaskId, statusOf as viewStatus, topologyOf, visibleGraph } from './graph-views';
import { reconcileAfterRestart } from './run/reconcile';
import { GrowthSignal } from '../core/growth-signal';
import { GRAPH_OPERATION } from '../tasks/index';
import { logSize, stageLogReader } from './logs/stage-log-reader';
import { artifactRootOf, stageLogRoot } from '../core/room-paths';
import type { RemoteStagePort } from '../process/remote-stage';
import { markHosts, placeStage } from './graph-hosts';

type GraphMethods = 'tasks_run' | 'tasks_status' | 'tasks_list' | 'tasks_cancel' | 'tasks_graph' | 'tasks_rerun';

/** Task graphs: submit, watch, cancel; reconcile after a crash; spool ended graphs' logs. */
/** A handoff's workspace as graphs use it: the folder its stages start in, and its list of runs (engine.ts builds it). */
export interface GraphWorkspaces {
  folderFor(caller: Caller, handoffId: string, cwd?: string): string;
  /** The same, with the host the worktree is on (null: this machine): a stage of its graph runs there. */
  placeFor(caller: Caller, handoffId: string, cwd?: string): { folder: string; host: string | null };
  addRun(handoffId: string, runId: string, at: string): void;
}

export function graphsFeature(ctx: EngineContext, tasks: TaskService, workspaces: GraphWorkspaces, terminalHost?: StageTerminalHost, logs?: TaskLogs, remote?: RemoteStagePort): Feature<GraphMethods> {
  const { room, limits } = ctx;
  const repo = new GraphRepo(room.db);
  const logRoot = stageLogRoot(room.location.markdownPath);
  const artifactRoot = artifactRootOf(room.location.markdownPath);
  // a stage's log growing, keyed by the stage's task id: what live log readers wait on
  const logGrowth = new GrowthSignal();
  const live = (graphId: string) => runtime.liveStages(graphId);
  const runtime = new GraphRuntime(ctx, repo, {
    tasks,
    logGrew: (graphId, stageId) => logGrowth.fire(stageTaskId(graphId, stageId)),
    roomId: room.id,
    logCapBytes: limits.maxStageLogBytes,
    defaultKillGraceMs: limits.defaultKillGraceMs,
    defaultRetryBackoffMs: limits.defaultRetryBackoffMs,
    maxRetryBackoffMs: limits.maxRetryBackoffMs,
    defaultReadinessTimeoutMs: limits.defaultReadinessTimeoutMs,
    terminalHost,
    remote,
    roleOf: (owner) => room.participants.byName(owner)?.role,
    // an agent's stages run in the OS sandbox; the operator's (the person's own graphs) as they are
    launcherFor: (owner) => {
      const placement = ctx.launcher.placementFor(room.participants.byName(owner)?.role);
      if (placement.sandbox === null) return null;
      return (file, args, env, cwd) => ctx.launcher.launch(placement, { file, args, env, cwd, owner });
    },
  });
  let retention: NodeJS.Timeout | undefined;

  function run(caller: Caller, input: MethodInput<'tasks_run'>): MethodOutputs['tasks_run'] {
    validateGraph(input.stages);
    if (repo.countUnfinished() >= limits.maxActiveGraphs) {
      throw new RoomError('LIMIT_EXCEEDED', `the room already runs ${limits.maxActiveGraphs} graphs: wait for one to end or cancel one (tasks_cancel)`);
    }
    // a graph run is a working task: it counts against the room's cap of them, as a handoff does
    const activeTasks = room.tasks.countActive();
    if (activeTasks >= limits.maxActiveTasks) {
      throw new RoomError('LIMIT_EXCEEDED', `the room already has ${activeTasks} tasks working or waiting for input (at most ${limits.maxActiveTasks}): finish or cancel one first`);
    }
    if (caller.role === 'agent') {
      const mine = repo.countUnfinishedOwnedBy(caller.name);
      if (mine >= limits.maxActiveGraphsPerAgent) {
        throw new RoomError('LIMIT_EXCEEDED', `you (${caller.name}) run ${mine} graphs, your share of the room's ${limits.maxActiveGraphs} (at most ${limits.maxActiveGraphsPerAgent} per agent): wait for one to end or cancel one (tasks_cancel)`);
      }
      const tasksMine = room.tasks.countActiveOwnedBy(caller.name);
      if (tasksMine >= limits.maxActiveTasksPerAgent) {
        throw new RoomError('LIMIT_EXCEEDED', `you (${caller.name}) have ${tasksMine} tasks working or waiting for input, your share of the room's ${limits.maxActiveTasks} (at most ${limits.maxActiveTasksPerAgent} per agent): finish or cancel one first`);
      }
    }
    const roomDir = path.dirname(room.location.markdownPath);
    const stages = input.stages.map((s) => {
      if (Array.isArray(s.command) && (s.command[0] ?? '') === '') {
        throw new RoomError('INVALID_INPUT', `stage "${s.id}": command[0] must name the program to run`);
      }
      // a handoff's worktree on a host: its tested-by stages run there, in it (the handoff's host is inherited)
      const there = input.handoffId === undefined ? null : workspaces.placeFor(caller, input.handoffId, s.cwd);
      if (there?.host) {
        const asked = s.host ?? input.host;
        if (asked !== undefined && asked !== there.host) {
          throw new RoomError('INVALID_INPUT', `stage "${s.id}": handoff ${input.handoffId}'s worktree is on host ${there.host}, not on ${asked}: leave out host (its stages run where the worktree is)`);
        }
        const { handoffId: _onHost, ...graph } = input;
        return placeStage(caller, { ...graph, host: there.host }, { ...s, cwd: there.folder }, remote) as typeof s;
      }
      // a stage on a host: its folder is the host's (from its account's home), checked there
      const placed = placeStage(caller, input, s, remote);
      if (placed) return placed;
      const cwd = input.handoffId === undefined ? path.resolve(roomDir, s.cwd ?? '.') : workspaces.folderFor(caller, input.handoffId, s.cwd);
      let isDir = false;
      try {
        isDir = fs.statSync(cwd).isDirectory();
      } catch {
        isDir = false;
      }
      if (!isDir) throw new RoomError('INVALID_INPUT', `stage "${s.id}": cwd ${cwd} is not a folder: create it or pass another cwd (relative paths start at the room's folder)`);
      return { ...s, cwd };
    });
    const id = ctx.ids.graphId();
    ensurePrivateDir(logRoot);
    const logDir = path.join(logRoot, id);
    ctx.commit(() => {
      const at = ctx.now();
      // graph.submitted is the task's creation event too: one write, one event
      tasks.create(
        { id, operation: GRAPH_OPERATION, owner: caller.name, ttlMs: null, pollIntervalMs: 2000, correlationId: id, at },
        { kind: 'graph.submitted', actor: caller.name, subject: id, data: { name: input.name ?? null, stages: stages.length } },
      );
      repo.insertGraph({
        id,
        name: input.name ?? null,
        owner: caller.name,
        maxParallel: input.maxParallel ?? limits.defaultGraphParallel,
        onFailure: input.onFailure ?? 'skip-dependents',
        state: 'pending',
        createdAt: at,
        logDir,
      });
      if (input.handoffId !== undefined) workspaces.addRun(input.handoffId, id, at);
      stages.forEach((s, ord) => {
        const { id: stageId, dependsOn, ...spec } = s;
        // a stage on a host is one attempt here: its node runs the retries (its log shows each)
        const maxAttempts = spec.host !== undefined ? 1 : retryPolicyOf(s, { initialBackoffMs: limits.defaultRetryBackoffMs, maxBackoffMs: limits.maxRetryBackoffMs }).maxAttempts;
        repo.insertStage({ graphId: id, stageId, ord, spec, dependsOn: dependsOn ?? [], maxAttempts, logPath: path.join(logDir, `${stageId}.log`) });
      });
      return { value: undefined, events: [] };
    });
    // the graph is committed (acknowledged): a failure to start it now is retried by the runtime, not an error here
    runtime.tryTick();
    const g = repo.graph(id);
    return {
      graphId: id,
      taskId: id,
      state: g?.state ?? 'pending',
      stages: repo.stages(id).map((s) => ({ id: s.stageId, taskId: stageTaskId(id, s.stageId), state: s.state })),
    };
  }

  /**
   * The same spec as an ended graph, submitted again by the caller as a new graph (its own id, logs, events); with
   * only: 'failed', just the stages that did not complete.
   */
  function rerun(caller: Caller, input: MethodInput<'tasks_rerun'>): MethodOutputs['tasks_rerun'] {
    const g = visibleGraph(repo, caller, input.graphId);
    if (g.state === 'pending' || g.state === 'running') {
      throw new RoomError('CONFLICT', `graph ${g.id} is still ${g.state}: wait for it to end or cancel it (tasks_cancel), then re-run it`);
    }
    let rows = repo.stages(g.id);
    if (input.only === 'failed') {
      // the stages that did not complete, each with its dependencies among them (the completed ones already ran)
      const again = new Set(rows.filter((s) => s.state !== 'completed').map((s) => s.stageId));
      if (again.size === 0) throw new RoomError('CONFLICT', `graph ${g.id} completed every stage: there is nothing failed to re-run (tasks_rerun without only runs it all again)`);
      rows = rows.filter((s) => again.has(s.stageId)).map((s) => ({ ...s, dependsOn: s.dependsOn.filter((d) => again.has(d)) }));
    }
    const stages = rows.map((s) => ({ id: s.stageId, dependsOn: s.dependsOn, ...s.spec }));
    return run(caller, { ...(g.name !== null ? { name: g.name } : {}), maxParallel: g.maxParallel, onFailure: g.onFailure, stages });
  }

  async function cancel(caller: Caller, input: MethodInput<'tasks_cancel'>): Promise<MethodOutputs['tasks_cancel']> {
    const g = visibleGraph(repo, caller, input.graphId);
    if (g.owner !== caller.name && !caller.capabilities.includes('operate')) {
      throw new RoomError('FORBIDDEN', `graph ${g.id} was submitted by ${g.owner}: only it or the operator may cancel it`);
    }
    const before = repo.stages(g.id);
    const answer = (message: string): MethodOutputs['tasks_cancel'] => {
      const after = repo.stages(g.id);
      const changed = after
        .map((s, i) => ({ id: s.stageId, from: (before[i] as (typeof before)[number]).state, to: s.state }))
        .filter((c) => c.from !== c.to);
      const changedIds = new Set(changed.map((c) => c.id));
      const unchanged = after.filter((s) => !changedIds.has(s.stageId)).map((s) => ({ id: s.stageId, state: s.state }));
      const graph = repo.graph(g.id) ?? g;
      return { graphId: g.id, changed, unchanged, message, graph: graphView(graph, after) };
    };
    if (hasEnded(g.state)) return answer(`graph ${g.id} already ended (${g.state}); nothing was changed`);
    if (input.stageId !== undefined) {
      const s = before.find((x) => x.stageId === input.stageId);
      if (!s) throw new RoomError('NOT_FOUND', `graph ${g.id} has no stage "${input.stageId}": tasks_graph lists its stages`);
      if (isTerminalStage(s.state)) return answer(`stage ${s.stageId} already ended (${s.state}); nothing was changed`);
      await runtime.cancel(g.id, caller.name, s);
      return answer(`stage ${s.stageId} cancelled; stages that depend on it are skipped`);
    }
    await runtime.cancel(g.id, caller.name);
    return answer(`graph ${g.id} cancelled: pending stages will not run, running ones were ended (SIGINT, SIGTERM, SIGKILL to each process tree)`);
  }

  /**
   * Resolves when an event of this graph is committed (with `ended`, only one that says it ended), when the
   * followed stage's log grows past what the caller has (`follow.check`, asked on each "grew" signal, never on a
   * timer), when the caller gave up (`signal`: its request was aborted or its connection closed), or after `waitMs`
   * (the wait's deadline). Long-polling spares agents the tight loops they otherwise fall into.
   */
  function waitForChange(graphId: string, waitMs: number, follow: { stageTaskId: string; check: () => boolean } | null, ended: boolean, signal: AbortSignal | undefined): Promise<void> {
    const ends = (event: RoomEvent) => {
      const data = event.data as { graphId?: unknown; state?: GraphState } | null;
      // with `ended`: the graph's state moving to an end, or (whatever ends it) its task's graph.ended
      if (ended) return event.subject === graphId && (event.kind === 'graph.ended' || (event.kind === 'graph.state' && hasEnded(data?.state as GraphState)));
      return event.subject === graphId || data?.graphId === graphId;
    };
    const growth = follow ? (wake: () => void) => logGrowth.on(follow.stageTaskId, () => follow.check() && wake()) : undefined;
    return waitOnFeed(ctx.bus, waitMs, signal, ends, growth);
  }

  // the task layer (tasks/get, tasks/cancel, tasks/result) reaches graph runs through these
  // visibility is the one task rule (owner, or operate/approve), the same as visibleGraph's
  tasks.register(GRAPH_OPERATION, {
    cancel: async (caller, task) => void (await cancel(caller, { graphId: task.id })),
  });

  logs?.register(stageLogReader(repo, limits, logGrowth));

  return {
    name: 'graphs',
    handlers: {
      tasks_run: run,
      tasks_status: async (caller, input, call) => {
        if (input.until !== undefined && input.stageId !== undefined) throw new RoomError('INVALID_INPUT', 'until applies to a whole graph: leave out stageId (a stage\'s log is followed with cursor and waitMs)');
        if (input.until !== undefined && input.waitMs === undefined) throw new RoomError('INVALID_INPUT', `until says what waitMs waits for: give waitMs too (at most ${limits.maxStatusWaitMs} ms)`);
        const statusOf = (...args: Parameters<typeof viewStatus>) => markHosts(viewStatus(...args), remote);
        if (!input.waitMs) return statusOf(repo, caller, input, limits, live);
        const first = statusOf(repo, caller, input, limits, live); // refuses an unknown graph before waiting
        const following = 'log' in first && input.cursor !== undefined;
        if (hasEnded(first.graph.state) || ('log' in first && following && first.log.records.length > 0)) {
          return { ...first, waitedMs: 0 };
        }
        const started = ctx.elapsedMs();
        const logPath = following ? repo.stages(input.graphId).find((x) => x.stageId === input.stageId)?.logPath : undefined;
        const cursor = input.cursor !== undefined && input.stageId !== undefined ? stageLogOffset(input.cursor, input.graphId, input.stageId) : 0;
        const follow = logPath && input.stageId !== undefined ? { stageTaskId: stageTaskId(input.graphId, input.stageId), check: () => logSize(logPath) > cursor } : null;
        await waitForChange(input.graphId, input.waitMs, follow, input.until === 'ended', call.signal);
        return { ...statusOf(repo, caller, input, limits, live), waitedMs: Math.round(ctx.elapsedMs() - started) };
      },
      tasks_list: (caller, input) => listOf(repo, caller, input),
      tasks_cancel: cancel,
      tasks_rerun: rerun,
      tasks_graph: (caller, input) => topologyOf(repo, caller, input.graphId),
    },
    async start(startup) {
      const { stages, killed } = await reconcileAfterRestart(ctx, repo, tasks, runtime.tagPrefix, startup.tagged);
      if (stages > 0 || killed > 0) console.error(`[graphs] restart reconciliation: ${stages} running stage(s) failed as RUNNER_RESTARTED, ${killed} orphaned process(es) ended`);
      // stages left running on hosts are followed again (their graphs go on)
      const adopted = runtime.adoptRemote();
      if (adopted > 0) console.error(`[graphs] restart: ${adopted} stage(s) running on hosts followed again`);
      const expired = () => void spoolEnded(ctx, repo, artifactRoot, { now: ctx.now(), retentionMs: limits.graphLogRetentionMs });
      expired();
      retention = setInterval(expired, Math.min(limits.graphLogRetentionMs, 60_000));
      retention.unref();
    },
    async close() {
      if (retention) clearInterval(retention);
      await runtime.close(Math.min(limits.defaultKillGraceMs, 2000));
      spoolEnded(ctx, repo, artifactRoot);
    },
  };
}
