import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { validateGraph } from '../../common/graphs/graph-validate';
import { isTerminalStage } from '../../common/graphs/stage-machine';
import { LIMITS } from '../../common/limits';
import type { EngineContext, Feature } from '../feature';
import type { TaskService } from '../tasks/task-service';
import type { TaskLogs } from '../tasks/task-logs';
import type { StageTerminalHost } from '../terminal/stage-terminal';
import { ensurePrivateDir } from '../fs-safe';
import { GraphRepo } from '../store/graphs';
import { spoolEnded } from './artifact-store';
import { GraphRuntime } from './graph-runtime';
import { graphView, listOf, readStageLog, stageTaskId, statusOf, topologyOf, unpackArtifact, visibleGraph } from './graph-views';
import { sliceLog } from './stage-log';
import { reconcileAfterRestart } from './reconcile';

type GraphMethods = 'tasks_run' | 'tasks_status' | 'tasks_list' | 'tasks_cancel' | 'tasks_graph';

function logSize(file: string): number {
  try {
    return fs.lstatSync(file).size;
  } catch {
    return 0;
  }
}

/** Where a room keeps the files it owns besides its database: `<room>.md.commonroom.d/` (0700). */
export function roomStateDir(markdownPath: string): string {
  return `${markdownPath}.commonroom.d`;
}

export function artifactRootOf(markdownPath: string): string {
  return path.join(roomStateDir(markdownPath), 'artifacts');
}

/** Task graphs: submit, watch, cancel; reconcile after a crash; spool ended graphs' logs. */
export function graphsFeature(ctx: EngineContext, tasks: TaskService, terminalHost?: StageTerminalHost, logs?: TaskLogs): Feature<GraphMethods> {
  const { room } = ctx;
  const repo = new GraphRepo(room.db);
  const stateDir = roomStateDir(room.location.markdownPath);
  const logRoot = path.join(stateDir, 'logs');
  const artifactRoot = artifactRootOf(room.location.markdownPath);
  const runtime = new GraphRuntime(ctx, repo, {
    roomId: room.id,
    logCapBytes: LIMITS.maxStageLogBytes,
    defaultKillGraceMs: LIMITS.defaultKillGraceMs,
    defaultRetryBackoffMs: LIMITS.defaultRetryBackoffMs,
    maxRetryBackoffMs: LIMITS.maxRetryBackoffMs,
    defaultReadinessTimeoutMs: LIMITS.defaultReadinessTimeoutMs,
    terminalHost,
  });
  let retention: NodeJS.Timeout | undefined;

  function run(caller: Caller, input: MethodInput<'tasks_run'>): MethodOutputs['tasks_run'] {
    validateGraph(input.stages);
    if (repo.countUnfinished() >= LIMITS.maxActiveGraphs) {
      throw new RoomError('LIMIT_EXCEEDED', `the room already runs ${LIMITS.maxActiveGraphs} graphs: wait for one to end or cancel one (tasks_cancel)`);
    }
    const roomDir = path.dirname(room.location.markdownPath);
    const stages = input.stages.map((s) => {
      if (Array.isArray(s.command) && (s.command[0] ?? '') === '') {
        throw new RoomError('INVALID_INPUT', `stage "${s.id}": command[0] must name the program to run`);
      }
      const cwd = path.resolve(roomDir, s.cwd ?? '.');
      let isDir = false;
      try {
        isDir = fs.statSync(cwd).isDirectory();
      } catch {
        isDir = false;
      }
      if (!isDir) throw new RoomError('INVALID_INPUT', `stage "${s.id}": cwd ${cwd} is not a folder: create it or pass another cwd (relative paths start at the room's folder)`);
      return { ...s, cwd };
    });
    const id = randomUUID();
    ensurePrivateDir(logRoot);
    const logDir = path.join(logRoot, id);
    ctx.commit(() => {
      const at = ctx.now();
      room.tasks.insert({ id, operation: 'graph.run', owner: caller.name, ttlMs: null, pollIntervalMs: 2000, correlationId: id, at });
      repo.insertGraph({
        id,
        name: input.name ?? null,
        owner: caller.name,
        maxParallel: input.maxParallel ?? LIMITS.defaultGraphParallel,
        onFailure: input.onFailure ?? 'skip-dependents',
        state: 'pending',
        createdAt: at,
        logDir,
      });
      stages.forEach((s, ord) => {
        const { id: stageId, dependsOn, ...spec } = s;
        repo.insertStage({ graphId: id, stageId, ord, spec, dependsOn: dependsOn ?? [], maxAttempts: 1 + (s.retries ?? 0), logPath: path.join(logDir, `${stageId}.log`) });
      });
      return {
        value: undefined,
        events: [{ kind: 'graph.submitted', actor: caller.name, subject: id, data: { name: input.name ?? null, stages: stages.length } }],
      };
    });
    runtime.tick();
    const g = repo.graph(id);
    return {
      graphId: id,
      taskId: id,
      state: g?.state ?? 'pending',
      stages: repo.stages(id).map((s) => ({ id: s.stageId, taskId: stageTaskId(id, s.stageId), state: s.state })),
    };
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
    if (g.state !== 'pending' && g.state !== 'running') return answer(`graph ${g.id} already ended (${g.state}); nothing was changed`);
    if (input.stageId !== undefined) {
      const s = before.find((x) => x.stageId === input.stageId);
      if (!s) throw new RoomError('NOT_FOUND', `graph ${g.id} has no stage "${input.stageId}": tasks_graph lists its stages`);
      if (isTerminalStage(s.state)) return answer(`stage ${s.stageId} already ended (${s.state}); nothing was changed`);
      const live = runtime.liveOf(g.id, s.stageId);
      if (live.length > 0) {
        await Promise.all(live.map((l) => runtime.endLive(l, 'cancel')));
      } else {
        runtime.dropRetry(g.id, s.stageId);
        ctx.commit(() => {
          const ok = repo.updateStage(g.id, s.stageId, { state: s.state, attempt: s.attempt }, {
            state: 'cancelled',
            errorCode: 'CANCELLED',
            message: `cancelled by ${caller.name}`,
            endedAt: ctx.now(),
            pid: null,
            pidStart: null,
          });
          return {
            value: undefined,
            events: ok
              ? [{ kind: 'graph.stage', actor: caller.name, subject: stageTaskId(g.id, s.stageId), data: { graphId: g.id, stageId: s.stageId, state: 'cancelled', errorCode: 'CANCELLED' } }]
              : [],
          };
        });
      }
      runtime.tick();
      return answer(`stage ${s.stageId} cancelled; stages that depend on it are skipped`);
    }
    const live = runtime.liveOf(g.id);
    runtime.requestCancel(g.id, caller.name);
    runtime.tick();
    await Promise.all(live.map((l) => runtime.endLive(l, 'cancel')));
    runtime.tick();
    return answer(`graph ${g.id} cancelled: pending stages will not run, running ones were ended (SIGINT, SIGTERM, SIGKILL to each process tree)`);
  }

  /**
   * Resolves when an event of this graph is committed, when `check` (a stage log read from a cursor) sees new
   * output, or after `waitMs`. Long-polling spares agents the tight loops they otherwise fall into.
   */
  function waitForChange(graphId: string, waitMs: number, check: (() => boolean) | null): Promise<void> {
    return new Promise<void>((resolve) => {
      const timers: NodeJS.Timeout[] = [];
      const done = () => {
        unsubscribe();
        for (const t of timers) clearTimeout(t); // clears intervals too
        resolve();
      };
      const unsubscribe = ctx.bus.subscribe((event) => {
        const data = event.data as { graphId?: unknown } | null;
        if (event.subject === graphId || data?.graphId === graphId) done();
      });
      timers.push(setTimeout(done, waitMs));
      if (check) {
        timers.push(
          setInterval(() => {
            if (check()) done();
          }, 100),
        );
      }
    });
  }

  // the task layer (tasks/get, tasks/cancel, tasks/result) reaches graph runs through these
  // visibility is the one task rule (owner, or operate/approve), the same as visibleGraph's
  tasks.register('graph.run', {
    cancel: async (caller, task) => void (await cancel(caller, { graphId: task.id })),
  });

  // task-log://<graphId>:<stageId>: a stage's output records, resumable by seq (spooled logs too). Readers
  // resume where they left off: the byte offset where a slice of records began is remembered by seq, so a
  // follower never rescans the log from its start, and a spooled log is decompressed once per read.
  const checkpoints = new Map<string, { seq: number; cursor: number }>();
  const stageOf = (caller: Caller, id: string) => {
    const cut = id.indexOf(':');
    if (cut < 0) return null;
    const g = visibleGraph(repo, caller, id.slice(0, cut));
    const stage = repo.stages(g.id).find((x) => x.stageId === id.slice(cut + 1));
    if (!stage) throw new RoomError('NOT_FOUND', 'unknown task');
    return stage;
  };
  logs?.register({
    read: (caller, id, fromSeq, limit) => {
      const stage = stageOf(caller, id);
      if (!stage) return null;
      const artifact = repo.artifact(stage.graphId, stage.stageId);
      let unpacked: Buffer | undefined;
      const slice = (cursor: number) => {
        if (!artifact) return readStageLog(repo, stage, cursor, LIMITS.maxLogReadBytes);
        unpacked ??= unpackArtifact(artifact.path);
        return sliceLog(unpacked, cursor, LIMITS.maxLogReadBytes, true);
      };
      const known = checkpoints.get(id);
      let cursor = known && known.seq <= fromSeq ? known.cursor : 0;
      const records: { seq: number; stream: string; at: string; text: string }[] = [];
      let more = false;
      for (;;) {
        const part = slice(cursor);
        const first = part.records[0];
        if (first && first.seq <= fromSeq) {
          checkpoints.delete(id);
          checkpoints.set(id, { seq: first.seq, cursor });
          if (checkpoints.size > 1000) checkpoints.delete(checkpoints.keys().next().value as string);
        }
        for (const r of part.records) {
          if (r.seq < fromSeq) continue;
          if (records.length === limit) {
            more = true;
            break;
          }
          records.push(r);
        }
        if (more || !part.more || part.cursor === cursor) break;
        cursor = part.cursor;
      }
      const last = records.at(-1);
      return { records, nextSeq: last ? last.seq + 1 : fromSeq, more };
    },
    // what a watcher compares: the log's size (or its spooled copy), never its contents
    version: (caller, id) => {
      const stage = stageOf(caller, id);
      if (!stage) return null;
      const artifact = repo.artifact(stage.graphId, stage.stageId);
      return artifact ? `spooled:${artifact.path}` : `live:${logSize(stage.logPath)}`;
    },
  });

  return {
    name: 'graphs',
    handlers: {
      tasks_run: run,
      tasks_status: async (caller, input) => {
        if (!input.waitMs) return statusOf(repo, caller, input);
        const first = statusOf(repo, caller, input); // refuses an unknown graph before waiting
        const following = 'log' in first && input.logCursor !== undefined;
        if ((first.graph.state !== 'pending' && first.graph.state !== 'running') || ('log' in first && following && first.log.records.length > 0)) {
          return { ...first, waitedMs: 0 };
        }
        const started = Date.now();
        const logPath = following ? repo.stages(input.graphId).find((x) => x.stageId === input.stageId)?.logPath : undefined;
        const cursor = input.logCursor ?? 0;
        await waitForChange(input.graphId, input.waitMs, logPath ? () => logSize(logPath) > cursor : null);
        return { ...statusOf(repo, caller, input), waitedMs: Date.now() - started };
      },
      tasks_list: (caller, input) => listOf(repo, caller, input),
      tasks_cancel: cancel,
      tasks_graph: (caller, input) => topologyOf(repo, caller, input.graphId),
    },
    async start() {
      const { stages, killed } = await reconcileAfterRestart(ctx, repo, runtime.tagPrefix);
      if (stages > 0 || killed > 0) console.error(`[graphs] restart reconciliation: ${stages} running stage(s) failed as RUNNER_RESTARTED, ${killed} orphaned process(es) ended`);
      const expired = () => void spoolEnded(ctx, repo, artifactRoot, { now: ctx.now(), retentionMs: LIMITS.graphLogRetentionMs });
      expired();
      retention = setInterval(expired, Math.min(LIMITS.graphLogRetentionMs, 60_000));
      retention.unref();
    },
    async close() {
      if (retention) clearInterval(retention);
      await runtime.close(Math.min(LIMITS.defaultKillGraceMs, 2000));
      spoolEnded(ctx, repo, artifactRoot);
    },
  };
}
