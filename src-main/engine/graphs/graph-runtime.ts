import path from 'node:path';
import { decide } from '../../common/graphs/graph-scheduler';
import { classifyExit, deriveGraphState, isRetryable, retryDelayMs, type StageErrorCode, type StageState } from '../../common/graphs/stage-machine';
import { isTerminalTask, type TaskStatus } from '../../common/task-machine';
import type { StageTerminalHost } from '../terminal/stage-terminal';
import type { EngineContext, EventInput } from '../feature';
import { ensurePrivateDir } from '../fs-safe';
import type { GraphRecord, GraphRepo, StageChange, StageRecord } from '../store/graphs';
import { probeUntilReady } from './readiness-probe';
import { StageLogWriter } from './stage-log';
import { startAttempt, type AttemptEnd, type AttemptHandle } from './stage-runner';
import { stageTaskId } from './graph-views';

export interface RuntimeOptions {
  roomId: string;
  logCapBytes: number;
  defaultKillGraceMs: number;
  defaultRetryBackoffMs: number;
  maxRetryBackoffMs: number;
  defaultReadinessTimeoutMs: number;
  /** Shows tty stages as live shells. */
  terminalHost?: StageTerminalHost | undefined;
}

interface Live {
  graphId: string;
  stageId: string;
  attempt: number;
  handle: AttemptHandle;
  graceMs: number;
  timers: NodeJS.Timeout[];
  stopProbe: AbortController;
  ending: boolean;
}

type Signal =
  | { kind: 'exit'; graphId: string; stageId: string; attempt: number; end: AttemptEnd }
  | { kind: 'ready'; graphId: string; stageId: string; attempt: number }
  | { kind: 'retry'; graphId: string; stageId: string; attempt: number };

const key = (graphId: string, stageId: string) => `${graphId}\u0000${stageId}`;

/** The runner's environment minus its own variables; a stage never inherits the runner's tag. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('COMMONROOM_')) env[k] = v;
  return env;
}

/**
 * Runs graphs: turns process exits, readiness and retry timers into stage transitions, and decides what to
 * start next. Everything that happened since the last tick is applied in ONE transaction (with its event
 * rows), so a hundred stages finishing together cost one commit, not a hundred. Processes are started only
 * after the commit that marked them running (with their tag), so a crash never leaves an unrecorded process.
 */
export class GraphRuntime {
  private readonly live = new Map<string, Live>();
  private readonly retryTimers = new Map<string, NodeJS.Timeout>();
  private readonly logs = new Map<string, StageLogWriter>();
  private readonly signals: Signal[] = [];
  /** Graphs whose whole cancel was asked for (durably: their pending stages are cancelled in the same tick). */
  private readonly cancelling = new Map<string, string>();
  private tickQueued = false;
  private closed = false;

  constructor(
    private readonly ctx: EngineContext,
    private readonly repo: GraphRepo,
    private readonly options: RuntimeOptions,
  ) {}

  tagFor(graphId: string, stageId: string, attempt: number): string {
    return `${this.options.roomId}:stage:${graphId}:${stageId}:${attempt}`;
  }

  /** Tag prefix of every stage process of this room (restart reconciliation sweeps it). */
  get tagPrefix(): string {
    return `${this.options.roomId}:stage:`;
  }

  scheduleTick(): void {
    if (this.tickQueued || this.closed) return;
    this.tickQueued = true;
    // setImmediate, not a microtask: exits that arrive in the same I/O turn are batched into one commit
    setImmediate(() => {
      this.tickQueued = false;
      try {
        this.tick();
      } catch (error) {
        // a failed commit (a full disk, a locked database) must not take the runner down or lose the exits
        // it was applying: they were put back, and the tick is tried again shortly
        console.error('[graphs] applying stage changes failed, retrying:', error);
        setTimeout(() => this.scheduleTick(), 1000).unref();
      }
    });
  }

  /** Asks for a whole graph's cancel; the next tick cancels pending stages and ends running ones. */
  requestCancel(graphId: string, actor: string): void {
    this.cancelling.set(graphId, actor);
  }

  /** Live attempts of a graph (or one stage), to await their end after a cancel. */
  liveOf(graphId: string, stageId?: string): Live[] {
    return [...this.live.values()].filter((l) => l.graphId === graphId && (stageId === undefined || l.stageId === stageId));
  }

  /** Ends one live attempt as cancelled and waits until its exit was applied. */
  async endLive(l: Live, reason: 'cancel' | 'service-stop' | 'timeout' | 'readiness-timeout', graceMs = l.graceMs): Promise<void> {
    if (!l.ending) {
      l.ending = true;
      await l.handle.end(reason, graceMs);
    }
    await l.handle.done;
  }

  /** A stage waiting for its next attempt: stops the wait. Returns whether there was one. */
  dropRetry(graphId: string, stageId: string): boolean {
    const t = this.retryTimers.get(key(graphId, stageId));
    if (!t) return false;
    clearTimeout(t);
    this.retryTimers.delete(key(graphId, stageId));
    return true;
  }

  unfinishedGraphIds(): string[] {
    return this.repo.unfinished().map((g) => g.id);
  }

  /** Applies everything pending and starts what may start. Synchronous: callers may tick() and read at once. */
  tick(): void {
    if (this.closed) return;
    const signals = this.signals.splice(0);
    try {
      this.applyTick(signals);
    } catch (error) {
      this.signals.unshift(...signals);
      throw error;
    }
  }

  private applyTick(signals: typeof this.signals): void {
    const toSpawn: StageRecord[] = [];
    const toEnd: { graphId: string; stageId: string; reason: 'cancel' | 'service-stop' }[] = [];
    const retries: { graphId: string; stageId: string; attempt: number; delay: number }[] = [];
    const finished: StageRecord[] = [];
    this.ctx.commit(() => {
      const at = this.ctx.now();
      const events: EventInput[] = [];
      const stageEvent = (s: StageRecord, state: StageState, data: Record<string, unknown> = {}) =>
        events.push({ kind: 'graph.stage', actor: null, subject: stageTaskId(s.graphId, s.stageId), data: { graphId: s.graphId, stageId: s.stageId, state, attempt: s.attempt, ...data } });
      const end = (s: StageRecord, expect: { state: StageState; attempt?: number }, state: StageState, errorCode: StageErrorCode | null, extra: StageChange = {}) => {
        const ok = this.repo.updateStage(s.graphId, s.stageId, expect, { state, errorCode, endedAt: at, pid: null, pidStart: null, ...extra });
        if (ok) {
          stageEvent(s, state, { errorCode, message: extra.message ?? null });
          finished.push(s);
        }
        return ok;
      };
      // one read per graph, not per signal: hundreds of exits of one graph must not read it hundreds of times
      const rows = new Map<string, Map<string, StageRecord>>();
      const rowOf = (graphId: string, stageId: string): StageRecord | undefined => {
        let m = rows.get(graphId);
        if (!m) rows.set(graphId, (m = new Map(this.repo.stages(graphId).map((x) => [x.stageId, x] as const))));
        return m.get(stageId);
      };
      for (const sig of signals) {
        // a stale cached row is harmless: every write below is a compare-and-set on (state, attempt)
        const s = rowOf(sig.graphId, sig.stageId);
        if (!s || s.state !== 'running' || s.attempt !== sig.attempt) continue; // fenced: an old attempt's news
        const expect = { state: 'running' as const, attempt: sig.attempt };
        if (sig.kind === 'ready') {
          if (this.repo.updateStage(s.graphId, s.stageId, expect, { ready: true, message: 'ready: its dependents may start' })) stageEvent(s, 'running', { ready: true });
        } else if (sig.kind === 'retry') {
          toSpawn.push(s);
        } else {
          const e = sig.end;
          const c = e.spawnError !== undefined ? { state: 'failed' as const, errorCode: 'SPAWN_FAILED' as const } : classifyExit(e);
          const why = describeEnd(e, c.errorCode);
          this.logs.get(key(s.graphId, s.stageId))?.write('runner', `[attempt ${s.attempt} ${why}]\n`);
          const graphCancelling = this.cancelling.has(s.graphId);
          if (c.state === 'failed' && isRetryable(c.errorCode) && s.attempt < s.maxAttempts && !graphCancelling) {
            const delay = retryDelayMs(s.spec.retryBackoffMs ?? this.options.defaultRetryBackoffMs, s.attempt + 1, this.options.maxRetryBackoffMs);
            this.repo.updateStage(s.graphId, s.stageId, expect, {
              pid: null,
              pidStart: null,
              exitCode: e.code,
              signal: e.signal,
              errorCode: c.errorCode,
              message: `attempt ${s.attempt} of ${s.maxAttempts} ${why}; retrying in ${delay} ms`,
            });
            stageEvent(s, 'running', { retrying: true, errorCode: c.errorCode });
            retries.push({ graphId: s.graphId, stageId: s.stageId, attempt: s.attempt, delay });
          } else {
            const message = e.endedBy === 'service-stop' ? 'stopped after every stage that needed it ended' : c.state === 'completed' ? null : why;
            end(s, expect, c.state, c.errorCode, { exitCode: e.code, signal: e.signal, message });
          }
        }
      }
      // every unfinished graph is settled each tick (at most maxActiveGraphs of them): a direct change such as a
      // pending stage's cancel must propagate to its dependents even when no process event touched the graph
      for (const graph of this.repo.unfinished()) this.settle(graph, at, events, end, toSpawn, toEnd);
      // mark the spawns (first attempts and retries) running with their attempt number and tag, before any process exists
      for (const s of toSpawn) {
        const attempt = s.attempt + 1;
        const ok = this.repo.updateStage(s.graphId, s.stageId, { state: s.state, attempt: s.attempt }, {
          state: 'running',
          attempt,
          procTag: this.tagFor(s.graphId, s.stageId, attempt),
          startedAt: s.startedAt ?? at,
          ready: false,
          // a retry starts clean: the previous attempt's failure stays in the log, not on the running stage
          errorCode: null,
          exitCode: null,
          signal: null,
          message: attempt > 1 ? `attempt ${attempt} of ${s.maxAttempts} (${s.message ?? 'after a failure'})` : null,
        });
        if (ok && s.state === 'pending') stageEvent({ ...s, attempt }, 'running');
        s.attempt = ok ? attempt : -1;
      }
      return { value: undefined, events };
    });
    for (const s of finished) this.closeLog(s.graphId, s.stageId);
    for (const r of retries) {
      const t = setTimeout(() => {
        this.retryTimers.delete(key(r.graphId, r.stageId));
        this.signals.push({ kind: 'retry', graphId: r.graphId, stageId: r.stageId, attempt: r.attempt });
        this.scheduleTick();
      }, r.delay);
      this.retryTimers.set(key(r.graphId, r.stageId), t);
    }
    const started: Live[] = [];
    for (const s of toSpawn.filter((x) => x.attempt > 0)) {
      try {
        started.push(this.spawn(s));
      } catch (error) {
        // e.g. the log folder is unsafe: the stage fails as SPAWN_FAILED instead of staying running forever
        this.signals.push({ kind: 'exit', graphId: s.graphId, stageId: s.stageId, attempt: s.attempt, end: { code: null, signal: null, spawnError: (error as Error).message } });
        this.scheduleTick();
      }
    }
    if (started.length > 0) {
      // pid and start time of each new attempt, in one commit: what the next runner needs to find orphans
      this.ctx.commit(() => {
        for (const l of started) {
          if (l.handle.pid !== null) {
            this.repo.updateStage(l.graphId, l.stageId, { state: 'running', attempt: l.attempt }, { pid: l.handle.pid, pidStart: l.handle.startTime });
          }
        }
        return { value: undefined, events: [] };
      });
    }
    for (const e of toEnd) {
      const l = this.live.get(key(e.graphId, e.stageId));
      if (l) void this.endLive(l, e.reason);
    }
  }

  /** One graph: skips, cancels, starts and service stops the scheduler decides, then the graph's derived state. */
  private settle(
    graph: GraphRecord,
    at: string,
    events: EventInput[],
    end: (s: StageRecord, expect: { state: StageState; attempt?: number }, state: StageState, code: StageErrorCode | null, extra?: StageChange) => boolean,
    toSpawn: StageRecord[],
    toEnd: { graphId: string; stageId: string; reason: 'cancel' | 'service-stop' }[],
  ): void {
    const stages = this.repo.stages(graph.id);
    const byId = new Map(stages.map((s) => [s.stageId, s] as const));
    const cancelActor = this.cancelling.get(graph.id);
    const d = decide(
      stages.map((s) => ({ id: s.stageId, dependsOn: s.dependsOn, state: s.state, hasReadiness: s.spec.readiness !== undefined, ready: s.ready })),
      { maxParallel: graph.maxParallel, onFailure: graph.onFailure, cancelling: cancelActor !== undefined },
    );
    for (const k of d.skip) {
      const s = byId.get(k.id) as StageRecord;
      if (end(s, { state: 'pending' }, 'skipped', 'UPSTREAM_FAILED', { message: `skipped: ${k.upstream} did not complete` })) s.state = 'skipped';
    }
    const why = cancelActor !== undefined ? `cancelled by ${cancelActor}` : 'cancelled: another stage failed and the graph cancels the rest (onFailure: cancel-all)';
    for (const id of d.cancelPending) {
      const s = byId.get(id) as StageRecord;
      if (end(s, { state: 'pending' }, 'cancelled', 'CANCELLED', { message: why })) s.state = 'cancelled';
    }
    for (const id of d.cancelRunning) {
      const s = byId.get(id) as StageRecord;
      if (this.live.has(key(graph.id, id))) toEnd.push({ graphId: graph.id, stageId: id, reason: 'cancel' });
      else {
        // between attempts (waiting to retry, or about to): no process to signal, it just ends here
        this.dropRetry(graph.id, id);
        const i = toSpawn.findIndex((x) => x.graphId === graph.id && x.stageId === id);
        if (i >= 0) toSpawn.splice(i, 1);
        if (end(s, { state: 'running', attempt: s.attempt }, 'cancelled', 'CANCELLED', { message: why })) s.state = 'cancelled';
      }
    }
    for (const id of d.start) toSpawn.push(byId.get(id) as StageRecord);
    for (const id of d.stopServices) toEnd.push({ graphId: graph.id, stageId: id, reason: 'service-stop' });
    const states = stages.map((s) => (d.start.includes(s.stageId) ? 'running' : s.state));
    const state = deriveGraphState(states);
    if (state === graph.state && graph.startedAt !== null) return;
    const ended = state !== 'pending' && state !== 'running';
    this.repo.setGraph(graph.id, { state, startedAt: graph.startedAt ?? (state !== 'pending' ? at : undefined), endedAt: ended ? at : undefined });
    if (state !== graph.state) events.push({ kind: 'graph.state', actor: null, subject: graph.id, data: { state } });
    if (ended) {
      this.cancelling.delete(graph.id);
      const failed = stages.filter((s) => s.state === 'failed').map((s) => s.stageId);
      const status: TaskStatus = state === 'completed' ? 'completed' : state === 'failed' ? 'failed' : 'cancelled';
      const statusMessage =
        state === 'completed'
          ? `all ${stages.length} stages completed`
          : state === 'failed'
            ? `failed: ${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ', …' : ''}`
            : 'cancelled';
      // an ended task never changes again (a task cancelled through tasks/cancel stays cancelled)
      if (!isTerminalTask(this.ctx.room.tasks.get(graph.id)?.status ?? 'completed')) {
        this.ctx.room.tasks.update(graph.id, { status, statusMessage, result: { graphId: graph.id, state, stages: stages.length, failed } }, at);
      }
      events.push({ kind: 'graph.ended', actor: cancelActor ?? null, subject: graph.id, data: { state, failed } });
    }
  }

  private spawn(s: StageRecord): Live {
    const k = key(s.graphId, s.stageId);
    let log = this.logs.get(k);
    if (!log) {
      ensurePrivateDir(path.dirname(s.logPath));
      log = StageLogWriter.create(s.logPath, this.options.logCapBytes, () => this.ctx.now());
      this.logs.set(k, log);
    }
    const spec = s.spec;
    const readiness = spec.readiness;
    const display = typeof spec.command === 'string' ? spec.command : JSON.stringify(spec.command);
    log.write('runner', `[attempt ${s.attempt} of ${s.maxAttempts}: ${display.slice(0, 500)}]\n`);
    let ready = false;
    const markReady = () => {
      if (ready) return;
      ready = true;
      log.write('runner', '[ready]\n');
      this.signals.push({ kind: 'ready', graphId: s.graphId, stageId: s.stageId, attempt: s.attempt });
      this.scheduleTick();
    };
    const pattern = readiness?.log !== undefined ? new RegExp(readiness.log) : null;
    const handle = startAttempt({
      taskId: stageTaskId(s.graphId, s.stageId),
      attempt: s.attempt,
      tag: this.tagFor(s.graphId, s.stageId, s.attempt),
      command: spec.command,
      cwd: spec.cwd ?? process.cwd(),
      env: { ...baseEnv(), ...spec.env, COMMONROOM_GRAPH_ID: s.graphId, COMMONROOM_STAGE_ID: s.stageId, COMMONROOM_ATTEMPT: String(s.attempt) },
      tty: spec.tty === true,
      owner: this.repo.graph(s.graphId)?.owner ?? 'operator',
      terminalHost: this.options.terminalHost,
      log,
      ...(pattern ? { onLine: (line: string) => !ready && pattern.test(line) && markReady() } : {}),
    });
    const live: Live = {
      graphId: s.graphId,
      stageId: s.stageId,
      attempt: s.attempt,
      handle,
      graceMs: spec.killGraceMs ?? this.options.defaultKillGraceMs,
      timers: [],
      stopProbe: new AbortController(),
      ending: false,
    };
    this.live.set(k, live);
    if (spec.timeoutMs !== undefined) live.timers.push(setTimeout(() => void this.endLive(live, 'timeout'), spec.timeoutMs));
    if (readiness) {
      if (readiness.port !== undefined || readiness.url !== undefined) {
        void probeUntilReady(readiness, live.stopProbe.signal).then((ok) => ok && markReady());
      }
      const wait = readiness.timeoutMs ?? this.options.defaultReadinessTimeoutMs;
      live.timers.push(setTimeout(() => !ready && void this.endLive(live, 'readiness-timeout'), wait));
    }
    void handle.done.then((end) => {
      for (const t of live.timers) clearTimeout(t);
      live.stopProbe.abort();
      if (this.live.get(k) === live) this.live.delete(k);
      this.signals.push({ kind: 'exit', graphId: s.graphId, stageId: s.stageId, attempt: s.attempt, end });
      this.scheduleTick();
    });
    return live;
  }

  private closeLog(graphId: string, stageId: string): void {
    const k = key(graphId, stageId);
    this.logs.get(k)?.close();
    this.logs.delete(k);
  }

  /** Graceful close: every live attempt is ended and recorded cancelled, so nothing outlives the room process. */
  async close(graceMs: number): Promise<void> {
    for (const id of this.unfinishedGraphIds()) this.requestCancel(id, 'the room closing');
    const ending = [...this.live.values()].map((l) => this.endLive(l, 'cancel', Math.min(l.graceMs, graceMs)));
    this.tick();
    // bounded: a process stuck in uninterruptible sleep must not hold the room open; a stage still running in
    // the database after this is reconciled (RUNNER_RESTARTED) by the next start
    await Promise.race([Promise.all(ending), new Promise((r) => setTimeout(r, 3 * graceMs + 2000).unref())]);
    this.tick();
    this.closed = true;
    for (const t of this.retryTimers.values()) clearTimeout(t);
    for (const log of this.logs.values()) log.close();
    this.logs.clear();
  }
}

function describeEnd(e: AttemptEnd, code: StageErrorCode | null): string {
  if (e.spawnError !== undefined) return `could not start: ${e.spawnError}`;
  switch (e.endedBy) {
    case 'cancel':
      return 'was cancelled';
    case 'timeout':
      return 'timed out and was ended';
    case 'readiness-timeout':
      return 'did not become ready in time and was ended';
    case 'service-stop':
      return 'was stopped: nothing needs it any more';
    default:
      break;
  }
  if (code === 'SIGNAL') return `was killed by ${e.signal}`;
  return `exited with code ${e.code}`;
}
