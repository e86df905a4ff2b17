import fs from 'node:fs';
import path from 'node:path';
import { retryPolicyOf, type RetryPolicy } from '../../common/graphs/retry-policy';
import type { StageTerminalHost } from '../terminal/stage-terminal';
import { ensurePrivateDir } from '../fs-safe';
import { procTags } from '../ids';
import type { StageRecord } from '../store/graphs';
import { CancelScope, type EndRequest } from './cancel-scope';
import { stageTaskId } from './graph-views';
import { probeUntilReady } from './readiness-probe';
import { StageLogWriter } from './stage-log';
import { startAttempt, type AttemptEnd, type AttemptHandle } from './stage-runner';
import { HelperSpawner, type StageSpawner } from '../process/stage-spawner';
import { isDiskFullError } from '../../common/errors';
import { compileAgentPattern } from '../../common/safe-pattern';

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
}

/** What an attempt reports back to the tick: its exit, its readiness, or that its retry wait is over. */
export type Signal =
  | { kind: 'exit'; graphId: string; stageId: string; attempt: number; end: AttemptEnd }
  | { kind: 'ready'; graphId: string; stageId: string; attempt: number }
  | { kind: 'retry'; graphId: string; stageId: string; attempt: number };

const key = (graphId: string, stageId: string) => `${graphId}\u0000${stageId}`;

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

/** How many stage-log folders are remembered as checked (one per running graph; the oldest is checked again). */
const CHECKED_DIRS = 64;
/** At most this many logs are held open ahead of their stage's start (see `prepareLogs`). */
const MAX_PREPARED_LOGS = 64;

/**
 * Supervises the live side of stages: starts attempts (with their log, timeout and readiness), waits out retry
 * backoffs, and ends attempts through the cancellation tree (runtime → graph → stage → attempt). It writes no
 * rows: everything it observes goes to the tick as a `Signal`, which applies it in one commit.
 */
export class AttemptSupervisor {
  private readonly live = new Map<string, Live>();
  private readonly retryTimers = new Map<string, { timer: NodeJS.Timeout; release: () => void }>();
  private readonly logs = new Map<string, StageLogWriter>();
  /** Logs created ahead of their stage's start (`prepareLogs`): their descriptors, by stage. */
  private readonly prepared = new Map<string, number>();
  /**
   * The runner's environment as stages inherit it, read once: reading process.env goes through the C library
   * for every variable, and a room's environment does not change while it runs.
   */
  private inherited: NodeJS.ProcessEnv | undefined;
  /** Log folders already made private and checked (the next stage of the same graph skips the folder's checks). */
  private readonly checkedDirs = new Set<string>();
  /** The root of the cancellation tree: its children are graphs, theirs stages, theirs attempts. */
  readonly scope = new CancelScope();
  /** Starts stage processes through a helper process (see stage-spawner.ts). */
  private readonly spawner: StageSpawner = new HelperSpawner();

  constructor(
    private readonly options: SupervisorOptions,
    private readonly signal: (s: Signal) => void,
  ) {}

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
    return this.live.has(key(graphId, stageId));
  }

  /** Ends a graph's (or one stage's) live work through the tree, and resolves once every attempt's exit was seen. */
  cancel(request: EndRequest, graphId: string, stageId?: string): Promise<void> {
    const node = stageId === undefined ? this.scope.find(graphId) : this.scope.find(graphId, stageId);
    return node ? node.cancel(request) : Promise.resolve();
  }

  /** Ends one stage's live attempt (a service no longer needed, a cancelled stage), without waiting. */
  end(graphId: string, stageId: string, reason: EndRequest['reason']): void {
    const l = this.live.get(key(graphId, stageId));
    if (l) void l.scope.cancel({ reason });
  }

  /** Waits `delay` ms, then tells the tick the stage may start its next attempt (unless its stage is cancelled first). */
  scheduleRetry(graphId: string, stageId: string, attempt: number, delay: number): void {
    const k = key(graphId, stageId);
    const timer = setTimeout(() => {
      this.dropRetry(graphId, stageId);
      this.signal({ kind: 'retry', graphId, stageId, attempt });
    }, delay);
    const release = this.scope.child(graphId).child(stageId).onCancel(() => void this.dropRetry(graphId, stageId));
    this.retryTimers.set(k, { timer, release });
  }

  /** A stage waiting for its next attempt: stops the wait. Returns whether there was one. */
  dropRetry(graphId: string, stageId: string): boolean {
    const t = this.retryTimers.get(key(graphId, stageId));
    if (!t) return false;
    clearTimeout(t.timer);
    this.retryTimers.delete(key(graphId, stageId));
    t.release();
    return true;
  }

  /** The note the runner writes into a stage's log (an attempt's end, a retry). */
  note(graphId: string, stageId: string, text: string): void {
    this.logs.get(key(graphId, stageId))?.write('runner', text);
  }

  /** A stage ended: its log is closed (or the one made ahead for it, when it ended without starting). */
  closeLog(graphId: string, stageId: string): void {
    const k = key(graphId, stageId);
    this.logs.get(k)?.close();
    this.logs.delete(k);
    const fd = this.prepared.get(k);
    if (fd === undefined) return;
    this.prepared.delete(k);
    fs.closeSync(fd);
  }

  /**
   * Creates the logs of stages that may start soon (the scheduler's hint), while the room waits on the stages
   * that run: a stage then starts without the file's creation in its way, which costs up to a millisecond where
   * the filesystem searches long for a free inode (ext4 without a journal skips recently deleted ones). Only
   * for graphs whose log folder is checked (one of their stages started); anything that fails here is left to
   * the stage's start, which tries again and reports it. A log made for a stage that then never runs stays
   * empty, and is removed with the graph's folder when its logs are spooled.
   */
  prepareLogs(stages: readonly StageRecord[]): void {
    for (const s of stages) {
      const k = key(s.graphId, s.stageId);
      if (this.prepared.size >= MAX_PREPARED_LOGS) return;
      if (s.state !== 'pending' || this.logs.has(k) || this.prepared.has(k) || !this.checkedDirs.has(path.dirname(s.logPath))) continue;
      try {
        this.prepared.set(k, StageLogWriter.createFile(s.logPath));
      } catch {
        // the start tries again, and says what is wrong
      }
    }
  }

  /** A graph ended: the logs made ahead for stages of it that never started are closed (they stay, empty). */
  dropPrepared(graphId: string): void {
    for (const [k, fd] of this.prepared) {
      if (!k.startsWith(key(graphId, ''))) continue;
      this.prepared.delete(k);
      fs.closeSync(fd);
    }
  }

  /** The log made ahead for a stage, if it is still where it was made (a folder removed by hand takes it along). */
  private takePrepared(k: string): number | undefined {
    const fd = this.prepared.get(k);
    if (fd === undefined) return undefined;
    this.prepared.delete(k);
    if (fs.fstatSync(fd).nlink > 0) return fd;
    fs.closeSync(fd);
    return undefined;
  }

  spawn(s: StageRecord, owner: string): Live {
    const k = key(s.graphId, s.stageId);
    let log = this.logs.get(k);
    if (!log) {
      const grew = this.options.logGrew;
      const fd = this.takePrepared(k);
      const create = () =>
        StageLogWriter.create(
          s.logPath,
          this.options.logCapBytes,
          this.options.now,
          grew ? () => grew(s.graphId, s.stageId) : undefined,
          (error) => {
            // the stage's output can no longer be recorded: end its live attempt (it fails DISK_FULL or LOG_WRITE_FAILED)
            void this.live.get(k)?.scope.cancel({ reason: endReasonFor(error) });
          },
          fd, // a log made ahead, or undefined: made now
        );
      log = fd !== undefined ? create() : this.createLog(s.logPath, create);
      this.logs.set(k, log);
    }
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
   * A stage's log, created in its folder: the folder is made private and checked for the first stage of a graph
   * only; should it have gone since (removed by hand), it is made again and the log created once more.
   */
  private createLog(logPath: string, create: () => StageLogWriter): StageLogWriter {
    const dir = path.dirname(logPath);
    if (!this.checkedDirs.has(dir)) {
      ensurePrivateDir(dir);
      if (this.checkedDirs.size >= CHECKED_DIRS) this.checkedDirs.delete(this.checkedDirs.values().next().value as string);
      this.checkedDirs.add(dir);
      return create();
    }
    try {
      return create();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.checkedDirs.delete(dir);
      return this.createLog(logPath, create);
    }
  }

  /** An attempt whose process was never started (its log cannot be written): it ends at once, through the usual exit path. */
  private notStarted(s: StageRecord, endedBy: 'disk-full' | 'log-failed', logError: string): Live {
    const end: AttemptEnd = { code: null, signal: null, endedBy, logError };
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
    const ending = this.scope.cancel({ reason: 'cancel', maxGraceMs: graceMs });
    await Promise.race([ending, new Promise((r) => setTimeout(r, 3 * graceMs + 2000).unref())]);
  }

  /** Stops every retry wait and closes every log (after endAll and the last tick). */
  close(): void {
    for (const t of this.retryTimers.values()) clearTimeout(t.timer);
    for (const log of this.logs.values()) log.close();
    this.logs.clear();
    for (const fd of this.prepared.values()) fs.closeSync(fd);
    this.prepared.clear();
    this.spawner.close();
  }
}
