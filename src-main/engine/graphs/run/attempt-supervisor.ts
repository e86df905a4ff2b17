import path from 'node:path';
import { retryPolicyOf, type RetryPolicy } from '../../../common/graphs/retry-policy';
import type { StageTerminalHost } from '../../terminal/stage-terminal';
import { procTags } from '../../core/ids';
import type { StageRecord } from '../../store/graphs';
import { CancelScope, type EndRequest } from './cancel-scope';
import { stageTaskId } from '../graph-views';
import { probeUntilReady } from './readiness-probe';
import { StageLogs, stageKey } from '../logs/stage-logs';
import { startAttempt, type StageLauncher, type AttemptEnd, type AttemptHandle } from './stage-runner';
import { HelperSpawner, type StageSpawner } from '../../process/stage-spawner';
import { isDiskFullError } from '../../../common/errors';
import { compileAgentPattern } from '../../../common/safe-pattern';
import type { RemoteStageHandle, RemoteStagePort } from '../../process/remote-stage';
import { startRemote } from './remote-attempt';

export interface SupervisorOptions {
  roomId: string;
  logCapBytes: number;
  defaultKillGraceMs: number;
  defaultReadinessTimeoutMs: number;
  defaultRetryBackoffMs: number;
  maxRetryBackoffMs: number;
  now: () => string;
  /** Shows tty stages as live shells. */
  terminalHost?: StageTerminalHost | undefined;
  /** Told whenever a stage's log grows (live readers wait on it instead of polling the file). */
  logGrew?: ((graphId: string, stageId: string) => void) | undefined;
  /** How an owner's stage processes are launched: in the agents' OS sandbox, or as they are (null). */
  launcherFor?: ((owner: string) => StageLauncher | null) | undefined;
  /** Stages placed on a host of the room go to its node through this port (engine/hosts); absent: none can be. */
  remote?: RemoteStagePort | undefined;
  /** The role of a participant of the room (an operator's remote stage runs as the node's operator). */
  roleOf?: ((owner: string) => string | undefined) | undefined;
}

export interface Live {
  graphId: string;
  stageId: string;
  attempt: number;
  handle: AttemptHandle;
  graceMs: number;
  timers: NodeJS.Timeout[];
  stopProbe: AbortController;
  /** The attempt's node in the cancellation tree (under its stage, under its graph). */
  scope: CancelScope;
  /** A stage on a host: the node runs it, this follows it (see spawnRemote). */
  remote?: RemoteStageHandle;
}

/** What an attempt reports back to the tick: its exit, its readiness, or that its retry wait is over. */
export type Signal =
  | { kind: 'exit'; graphId: string; stageId: string; attempt: number; end: AttemptEnd }
  | { kind: 'ready'; graphId: string; stageId: string; attempt: number }
  | { kind: 'retry'; graphId: string; stageId: string; attempt: number };

/** How a failed log write ends its stage: no space left is DISK_FULL, any other I/O error LOG_WRITE_FAILED. */
function endReasonFor(error: NodeJS.ErrnoException): 'disk-full' | 'log-failed' {
  return isDiskFullError(error) ? 'disk-full' : 'log-failed';
}

/** The reason on the stage, naming the folder to free space in. */
function describeLogFailure(error: NodeJS.ErrnoException, logPath: string): string {
  if (isDiskFullError(error)) return `no space left on the disk holding ${path.dirname(logPath)}: free space there, then run the graph again`;
  return `${error.code ?? 'I/O error'} writing ${logPath}: ${(error.message.split('\n')[0] ?? '').slice(0, 200)}`;
}

/** The runner's environment minus its own variables; a stage never inherits the runner's tag. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('COMMONROOM_')) env[k] = v;
  return env;
}

/**
 * Supervises the live side of stages: starts attempts (with their log, timeout and readiness), waits out retry
 * backoffs, and ends attempts through the cancellation tree (runtime → graph → stage → attempt). It writes no
 * rows: everything it observes goes to the tick as a `Signal`, which applies it in one commit.
 */
export class AttemptSupervisor {
  private readonly live = new Map<string, Live>();
  private readonly retryTimers = new Map<string, { timer: NodeJS.Timeout; release: () => void }>();
  /** The stages' logs: made when a stage first starts (or ahead of it), closed when it ends. */
  readonly logs: StageLogs;
  /**
   * The runner's environment as stages inherit it, read once: reading process.env goes through the C library
   * for every variable, and a room's environment does not change while it runs.
   */
  private inherited: NodeJS.ProcessEnv | undefined;
  /** The root of the cancellation tree: its children are graphs, theirs stages, theirs attempts. */
  readonly scope = new CancelScope();
  /** Starts stage processes through a helper process (see stage-spawner.ts). */
  private readonly spawner: StageSpawner = new HelperSpawner();

  constructor(
    private readonly options: SupervisorOptions,
    private readonly signal: (s: Signal) => void,
  ) {
    this.logs = new StageLogs({ capBytes: options.logCapBytes, now: options.now, grew: options.logGrew });
  }

  tagFor(graphId: string, stageId: string, attempt: number): string {
    return procTags.stage(this.options.roomId, graphId, stageId, attempt);
  }

  /** Tag prefix of every stage process of this room (restart reconciliation sweeps it). */
  get tagPrefix(): string {
    return procTags.stagePrefix(this.options.roomId);
  }

  /** A stage's retry policy: its spec's retries and backoff, doubling, capped. */
  policyOf(s: StageRecord): RetryPolicy {
    const policy = retryPolicyOf(s.spec, { initialBackoffMs: this.options.defaultRetryBackoffMs, maxBackoffMs: this.options.maxRetryBackoffMs });
    // the attempt count recorded at submit is what the stage was promised
    return { ...policy, maxAttempts: s.maxAttempts };
  }

  isLive(graphId: string, stageId: string): boolean {
    return this.live.has(stageKey(graphId, stageId));
  }

  /** Ends a graph's (or one stage's) live work through the tree, and resolves once every attempt's exit was seen. */
  cancel(request: EndRequest, graphId: string, stageId?: string): Promise<void> {
    const node = stageId === undefined ? this.scope.find(graphId) : this.scope.find(graphId, stageId);
    return node ? node.cancel(request) : Promise.resolve();
  }

  /** Ends one stage's live attempt (a service no longer needed, a cancelled stage), without waiting. */
  end(graphId: string, stageId: string, reason: EndRequest['reason']): void {
    const l = this.live.get(stageKey(graphId, stageId));
    if (l) void l.scope.cancel({ reason });
  }

  /** Waits `delay` ms, then tells the tick the stage may start its next attempt (unless its stage is cancelled first). */
  scheduleRetry(graphId: string, stageId: string, attempt: number, delay: number): void {
    const k = stageKey(graphId, stageId);
    const timer = setTimeout(() => {
      this.dropRetry(graphId, stageId);
      this.signal({ kind: 'retry', graphId, stageId, attempt });
    }, delay);
    const release = this.scope.child(graphId).child(stageId).onCancel(() => void this.dropRetry(graphId, stageId));
    this.retryTimers.set(k, { timer, release });
  }

  /** A stage waiting for its next attempt: stops the wait. Returns whether there was one. */
  dropRetry(graphId: string, stageId: string): boolean {
    const t = this.retryTimers.get(stageKey(graphId, stageId));
    if (!t) return false;
    clearTimeout(t.timer);
    this.retryTimers.delete(stageKey(graphId, stageId));
    t.release();
    return true;
  }

  spawn(s: StageRecord, owner: string): Live {
    if (s.spec.host !== undefined) return this.spawnRemote(s, owner, s.spec.host);
    const k = stageKey(s.graphId, s.stageId);
    // the stage's output can no longer be recorded: end its live attempt (it fails DISK_FULL or LOG_WRITE_FAILED)
    const log = this.logs.forStage(s, (error) => void this.live.get(k)?.scope.cancel({ reason: endReasonFor(error) }));
    const spec = s.spec;
    const readiness = spec.readiness;
    const display = typeof spec.command === 'string' ? spec.command : JSON.stringify(spec.command);
    log.write('runner', `[attempt ${s.attempt} of ${s.maxAttempts}: ${display.slice(0, 500)}]\n`);
    const logFailure = log.failure;
    if (logFailure) return this.notStarted(s, endReasonFor(logFailure), describeLogFailure(logFailure, s.logPath));
    let ready = false;
    const markReady = () => {
      if (ready) return;
      ready = true;
      log.write('runner', '[ready]\n');
      this.signal({ kind: 'ready', graphId: s.graphId, stageId: s.stageId, attempt: s.attempt });
    };
    const pattern = readiness?.log !== undefined ? compileAgentPattern(readiness.log) : null;
    const handle = startAttempt({
      taskId: stageTaskId(s.graphId, s.stageId),
      attempt: s.attempt,
      tag: this.tagFor(s.graphId, s.stageId, s.attempt),
      command: spec.command,
      cwd: spec.cwd ?? process.cwd(),
      env: { ...(this.inherited ??= baseEnv()), ...spec.env, COMMONROOM_GRAPH_ID: s.graphId, COMMONROOM_STAGE_ID: s.stageId, COMMONROOM_ATTEMPT: String(s.attempt) },
      tty: spec.tty === true,
      spawner: this.spawner,
      owner,
      launch: this.options.launcherFor?.(owner) ?? undefined,
      terminalHost: this.options.terminalHost,
      log,
      ...(pattern ? { onLine: (line: string) => !ready && pattern.find(line) !== null && markReady() } : {}),
    });
    const live: Live = {
      graphId: s.graphId,
      stageId: s.stageId,
      attempt: s.attempt,
      handle,
      graceMs: spec.killGraceMs ?? this.options.defaultKillGraceMs,
      timers: [],
      stopProbe: new AbortController(),
      scope: this.scope.child(s.graphId).child(s.stageId).child(String(s.attempt)),
    };
    // the one way an attempt is ended early: SIGINT, SIGTERM, SIGKILL to its tree, then wait for its exit
    live.scope.onCancel(async (request) => {
      await handle.end(request.reason, Math.min(live.graceMs, request.maxGraceMs ?? Infinity));
      await handle.done;
    });
    this.live.set(k, live);
    if (spec.timeoutMs !== undefined) live.timers.push(setTimeout(() => void live.scope.cancel({ reason: 'timeout' }), spec.timeoutMs));
    if (readiness) {
      if (readiness.port !== undefined || readiness.url !== undefined) {
        void probeUntilReady(readiness, live.stopProbe.signal).then((ok) => ok && markReady());
      }
      const wait = readiness.timeoutMs ?? this.options.defaultReadinessTimeoutMs;
      live.timers.push(setTimeout(() => !ready && void live.scope.cancel({ reason: 'readiness-timeout' }), wait));
    }
    void handle.done.then((end) => {
      for (const t of live.timers) clearTimeout(t);
      live.stopProbe.abort();
      if (this.live.get(k) === live) this.live.delete(k);
      live.scope.detach();
      const failure = log.failure;
      const logEnded = end.endedBy === 'disk-full' || end.endedBy === 'log-failed';
      this.signal({ kind: 'exit', graphId: s.graphId, stageId: s.stageId, attempt: s.attempt, end: logEnded && failure ? { ...end, logError: describeLogFailure(failure, s.logPath) } : end });
    });
    return live;
  }

  /**
   * A stage on a host: handed to the host's node under its key (the same key after a restart, so the node answers
   * with the run it has instead of starting another), its log mirrored into the stage's log here from where that
   * ends. The node enforces its timeout and runs its retries (its log shows each attempt); here it is one attempt
   * that ends when the node says so. Also how a restarted room adopts a remote stage it left running.
   */
  spawnRemote(s: StageRecord, owner: string, host: string): Live {
    const k = stageKey(s.graphId, s.stageId);
    const port = this.options.remote;
    if (!port) return this.notStarted(s, 'log-failed', 'this room places no stage on a host', `no host can run stage ${s.stageId} here (the room was opened without hosts)`);
    const handle = startRemote(port, s, owner, host, {
      key: this.tagFor(s.graphId, s.stageId, s.attempt),
      role: this.options.roleOf?.(owner),
      grew: () => this.options.logGrew?.(s.graphId, s.stageId),
    });
    const live: Live = {
      graphId: s.graphId,
      stageId: s.stageId,
      attempt: s.attempt,
      handle: { pid: null, startTime: null, done: handle.done, end: async (reason) => void (await handle.end(reason)) },
      graceMs: 0,
      timers: [],
      stopProbe: new AbortController(),
      scope: this.scope.child(s.graphId).child(s.stageId).child(String(s.attempt)),
      remote: handle,
    };
    // cancelling reaches the host; the stage ends here when the node says it ended (unknown while unreachable)
    live.scope.onCancel(async (request) => {
      if (await handle.end(request.reason)) await handle.done;
    });
    this.live.set(k, live);
    void handle.done.then((end) => {
      if (this.live.get(k) === live) this.live.delete(k);
      live.scope.detach();
      this.signal({ kind: 'exit', graphId: s.graphId, stageId: s.stageId, attempt: s.attempt, end });
    });
    return live;
  }

  /** An attempt whose process was never started (its log cannot be written): it ends at once, through the usual exit path. */
  private notStarted(s: StageRecord, endedBy: 'disk-full' | 'log-failed', logError: string, spawnError?: string): Live {
    const end: AttemptEnd = spawnError !== undefined ? { code: null, signal: null, spawnError } : { code: null, signal: null, endedBy, logError };
    const handle: AttemptHandle = { pid: null, startTime: null, done: Promise.resolve(end), end: () => Promise.resolve() };
    void handle.done.then(() => this.signal({ kind: 'exit', graphId: s.graphId, stageId: s.stageId, attempt: s.attempt, end }));
    return {
      graphId: s.graphId,
      stageId: s.stageId,
      attempt: s.attempt,
      handle,
      graceMs: 0,
      timers: [],
      stopProbe: new AbortController(),
      // nothing to end: a scope of its own, outside the tree
      scope: new CancelScope(),
    };
  }

  /**
   * Ends every live attempt (capping each grace period at `graceMs`) and waits for their exits, bounded: a
   * process stuck in uninterruptible sleep must not hold the room open.
   */
  async endAll(graceMs: number): Promise<void> {
    // a stage on a host is not the room's process: it goes on there, and the next room adopts it
    for (const [k, l] of this.live) {
      if (!l.remote) continue;
      l.remote.detach();
      l.scope.detach();
      this.live.delete(k);
    }
    const ending = this.scope.cancel({ reason: 'cancel', maxGraceMs: graceMs });
    await Promise.race([ending, new Promise((r) => setTimeout(r, 3 * graceMs + 2000).unref())]);
  }

  /** Stops every retry wait and closes every log (after endAll and the last tick). */
  close(): void {
    for (const t of this.retryTimers.values()) clearTimeout(t.timer);
    this.logs.closeAll();
    this.spawner.close();
  }
}
