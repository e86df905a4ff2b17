import type { StageErrorCode, StageState } from '../../../common/graphs/stage-machine';
import type { EngineContext, EventInput } from '../../room/index';
import type { GraphRepo, StageChange, StageRecord } from '../../store/graphs';
import { AttemptSupervisor, type Live, type Signal, type SupervisorOptions } from './attempt-supervisor';
import { outcomeOf, startingChange } from './attempt-outcome';
import { stageTaskId } from '../graph-views';
import { noteGraphProgress } from '../graph-task';
import { settleGraph, type SettleDeps, type TickWork } from './graph-settle';
import type { TaskService } from '../../tasks/index';
import { PendingPids } from './pending-pids';
import { StageCache } from './stage-cache';
import { TickBackoff } from './tick-backoff';

/** What the runtime is configured with: the supervisor's options (the clock comes from the engine context), and the task layer. */
export type RuntimeOptions = Omit<SupervisorOptions, 'now'> & {
  /** The only writer of the graphs' task rows. */
  tasks: TaskService;
};

/**
 * Runs graphs: turns process exits, readiness and retry timers into stage transitions, and decides what to
 * start next. Everything that happened since the last tick is applied in ONE transaction (with its event
 * rows), so a hundred stages finishing together cost one commit, not a hundred. Processes are started only
 * after the commit that marked them running (with their tag), so a crash never leaves an unrecorded process.
 */
export class GraphRuntime {
  private readonly attempts: AttemptSupervisor;
  /** The stage rows of running graphs, read once: this runtime is their only writer. */
  private readonly cache: StageCache;
  private readonly signals: Signal[] = [];
  /** Graphs whose whole cancel was asked for (durably: their pending stages are cancelled in the same tick). */
  private readonly cancelling = new Map<string, string>();
  private tickQueued = false;
  private readonly backoff: TickBackoff;
  /** Attempts started whose pid is not written yet (a coming tick writes them). */
  private readonly pendingPids = new PendingPids(() => this.scheduleTick());
  private closed = false;
  /** The room is closing: nothing new starts. */
  private closing = false;
  /** What settling a graph reads and writes through. */
  private readonly settleDeps: SettleDeps;

  constructor(
    private readonly ctx: EngineContext,
    private readonly repo: GraphRepo,
    private readonly options: RuntimeOptions,
  ) {
    this.cache = new StageCache(repo);
    this.backoff = new TickBackoff(ctx.health, () => this.scheduleTick());
    this.attempts = new AttemptSupervisor({ ...options, now: () => ctx.now() }, (signal) => {
      this.signals.push(signal);
      this.scheduleTick();
    });
    this.settleDeps = { cache: this.cache, attempts: this.attempts, repo, tasks: options.tasks };
  }

  /** Tag prefix of every stage process of this room (restart reconciliation sweeps it). */
  get tagPrefix(): string {
    return this.attempts.tagPrefix;
  }

  scheduleTick(): void {
    // while a failed tick backs off, its retry timer brings the next one (a full disk is not hammered)
    if (this.tickQueued || this.closed || this.backoff.waiting) return;
    this.tickQueued = true;
    // setImmediate, not a microtask: exits that arrive in the same I/O turn are batched into one commit
    setImmediate(() => {
      this.tickQueued = false;
      this.tryTick();
    });
  }

  /** Applies what is pending if it can; a failure was recorded and will be retried (see `tick`). */
  tryTick(): void {
    try {
      this.tick();
    } catch {
      // recorded by tick: the changes were put back and a retry is scheduled
    }
  }

  /**
   * The one entry point for cancelling: a whole graph (its pending stages are cancelled durably in the next
   * tick, its running attempts ended through the cancellation tree) or one stage (its live attempt ended; a
   * stage between attempts, or not started, is recorded cancelled at once). Resolves when it took effect.
   */
  async cancel(graphId: string, actor: string, s?: StageRecord): Promise<void> {
    if (s === undefined) {
      this.cancelling.set(graphId, actor);
      this.tick();
      await this.attempts.cancel({ reason: 'cancel' }, graphId);
      this.tick();
      return;
    }
    if (this.attempts.isLive(graphId, s.stageId)) {
      await this.attempts.cancel({ reason: 'cancel' }, graphId, s.stageId);
    } else {
      this.attempts.dropRetry(graphId, s.stageId);
      let cancelled = false;
      this.commit(() => {
        const ok = this.cache.update(s, { state: s.state, attempt: s.attempt }, {
          state: 'cancelled',
          errorCode: 'CANCELLED',
          message: `cancelled by ${actor}`,
          endedAt: this.ctx.now(),
          pid: null,
          pidStart: null,
        });
        cancelled = ok;
        return {
          value: undefined,
          events: ok
            ? [{ kind: 'graph.stage', actor, subject: stageTaskId(graphId, s.stageId), data: { graphId, stageId: s.stageId, state: 'cancelled', errorCode: 'CANCELLED' } }]
            : [],
        };
      });
      // a stage between attempts, or one not started: its log (or the one made ahead for it) is done with
      if (cancelled) this.attempts.logs.close(graphId, s.stageId);
    }
    this.tick();
  }

  /** A running graph's stages as this runtime holds them (equal to the committed rows between ticks), or undefined. */
  liveStages(graphId: string): readonly StageRecord[] | undefined {
    return this.cache.peek(graphId);
  }

  unfinishedGraphIds(): string[] {
    return this.repo.unfinished().map((g) => g.id);
  }

  /** Applies everything pending and starts what may start. Synchronous: callers may tick() and read at once. */
  tick(): void {
    if (this.closed) return;
    const signals = this.signals.splice(0);
    const { known: pids, waiting } = this.pendingPids.take((l) => this.attempts.isLive(l.graphId, l.stageId));
    try {
      this.applyTick(signals, pids);
    } catch (error) {
      // a failed commit (a full disk, a locked database) must not take the runner down or lose the exits it
      // was applying: they are put back and tried again after a bounded, growing wait
      this.signals.unshift(...signals);
      this.pendingPids.putBack([...pids, ...waiting]);
      this.backoff.failed(error);
      throw error;
    }
    this.backoff.succeeded();
    this.pendingPids.add(waiting);
  }

  /** A commit whose failure (rolled back) also drops the cached rows its writes had already changed. */
  private commit(fn: () => { value: undefined; events: EventInput[] }): void {
    try {
      this.ctx.commit(fn);
    } catch (error) {
      this.cache.clear();
      throw error;
    }
  }

  private applyTick(signals: typeof this.signals, pids: Live[]): void {
    const toSpawn: StageRecord[] = [];
    /** The spawns whose row was marked running (a failed compare-and-set starts nothing). */
    const marked = new Set<StageRecord>();
    const toEnd: TickWork['toEnd'] = [];
    const retries: { graphId: string; stageId: string; attempt: number; delay: number }[] = [];
    const finished: StageRecord[] = [];
    const endedGraphs: string[] = [];
    const soon: StageRecord[] = [];
    /** Who submitted each unfinished graph: a tty stage's shell belongs to it. */
    const owners = new Map<string, string>();
    this.commit(() => {
      const at = this.ctx.now();
      const events: EventInput[] = [];
      this.recordPids(pids);
      // a stage on a host says which (the summary and Activity say where it ran)
      const stageEvent = (s: StageRecord, state: StageState, data: Record<string, unknown> = {}) =>
        events.push({ kind: 'graph.stage', actor: null, subject: stageTaskId(s.graphId, s.stageId), data: { graphId: s.graphId, stageId: s.stageId, state, attempt: s.attempt, ...(s.spec.host !== undefined ? { host: s.spec.host } : {}), ...data } });
      const end = (s: StageRecord, expect: { state: StageState; attempt?: number }, state: StageState, errorCode: StageErrorCode | null, extra: StageChange = {}) => {
        const ok = this.cache.update(s, expect, { state, errorCode, endedAt: at, pid: null, pidStart: null, ...extra });
        if (ok) {
          stageEvent(s, state, { errorCode, message: extra.message ?? null });
          finished.push(s);
        }
        return ok;
      };
      for (const sig of signals) {
        // every write below is a compare-and-set on (state, attempt), so even a stale row could do no harm
        const s = this.cache.stage(sig.graphId, sig.stageId);
        if (!s || s.state !== 'running' || s.attempt !== sig.attempt) continue; // fenced: an old attempt's news
        const expect = { state: 'running' as const, attempt: sig.attempt };
        if (sig.kind === 'ready') {
          if (this.cache.update(s, expect, { ready: true, message: 'ready: its dependents may start' })) stageEvent(s, 'running', { ready: true });
        } else if (sig.kind === 'retry') {
          toSpawn.push(s);
        } else {
          const outcome = outcomeOf(s, sig.end, this.attempts.policyOf(s), this.cancelling.has(s.graphId));
          this.attempts.logs.note(s.graphId, s.stageId, `[attempt ${s.attempt} ${outcome.why}]\n`);
          if (outcome.kind === 'retry') {
            this.cache.update(s, expect, outcome.change);
            stageEvent(s, 'running', { retrying: true, errorCode: outcome.errorCode });
            retries.push({ graphId: s.graphId, stageId: s.stageId, attempt: s.attempt, delay: outcome.delay });
          } else {
            end(s, expect, outcome.state, outcome.errorCode, outcome.change);
          }
        }
      }
      // every unfinished graph is settled each tick (at most maxActiveGraphs of them): a direct change such as a
      // pending stage's cancel must propagate to its dependents even when no process event touched the graph
      const work: TickWork = { at, events, end, toSpawn, toEnd, soon };
      for (const graph of this.repo.unfinished()) {
        owners.set(graph.id, graph.owner);
        if (!settleGraph(this.settleDeps, graph, this.cancelling.get(graph.id), work)) continue;
        this.cancelling.delete(graph.id);
        endedGraphs.push(graph.id);
      }
      // the room closing starts nothing new (a graph left running with a stage on a host goes on in the next room)
      if (this.closing) toSpawn.length = 0;
      // mark the spawns (first attempts and retries) running with their attempt number and tag, before any process exists
      for (const s of toSpawn) {
        const attempt = s.attempt + 1;
        const ok = this.cache.update(s, { state: s.state, attempt: s.attempt }, startingChange(s, attempt, this.attempts.tagFor(s.graphId, s.stageId, attempt), at));
        // a retry's start too: its wait is over and its error cleared (a view patched from the feed sees it)
        if (ok) stageEvent(s, 'running');
        if (ok) marked.add(s);
      }
      // every graph a stage of which moved: its task says where its stages are now (an ended one is left alone)
      const moved = new Set(events.filter((e) => e.kind === 'graph.stage').map((e) => (e.data as { graphId: string }).graphId));
      for (const graphId of moved) noteGraphProgress(this.options.tasks, graphId, this.cache.stages(graphId));
      return { value: undefined, events };
    });
    for (const id of endedGraphs) {
      this.cache.forget(id);
      this.attempts.logs.dropPrepared(id);
    }
    for (const s of finished) this.attempts.logs.close(s.graphId, s.stageId);
    for (const r of retries) this.attempts.scheduleRetry(r.graphId, r.stageId, r.attempt, r.delay);
    const started: Live[] = [];
    // every stage spawned belongs to a graph settled above (the read is only a fallback)
    const ownerOf = (id: string) => owners.get(id) ?? this.repo.graph(id)?.owner ?? 'operator';
    for (const s of toSpawn.filter((x) => marked.has(x))) {
      try {
        started.push(this.attempts.spawn(s, ownerOf(s.graphId)));
      } catch (error) {
        // e.g. the log folder is unsafe: the stage fails as SPAWN_FAILED instead of staying running forever
        this.signals.push({ kind: 'exit', graphId: s.graphId, stageId: s.stageId, attempt: s.attempt, end: { code: null, signal: null, spawnError: (error as Error).message } });
        this.scheduleTick();
      }
    }
    // pid and start time of each new attempt go into a coming tick's commit
    this.pendingPids.add(started);
    for (const e of toEnd) this.attempts.end(e.graphId, e.stageId, e.reason);
    // after the spawns went out, and before the next tick: made while the stages just started run (for graphs
    // this runtime still runs then: one that ended meanwhile closed what was made for it)
    if (soon.length > 0) setImmediate(() => !this.closed && this.attempts.logs.prepare(soon.filter((s) => this.cache.peek(s.graphId) !== undefined)));
  }

  /**
   * Writes the pid and start time of attempts started since the last tick, inside its transaction (before its
   * exits, which clear them). Until then a crash leaves the attempt with its tag recorded but not its pid:
   * restart reconciliation still finds and ends it, and every process it started, by that tag.
   */
  private recordPids(pids: Live[]): void {
    for (const l of pids) {
      const s = this.cache.stage(l.graphId, l.stageId);
      if (s && l.handle.pid !== null) this.cache.update(s, { state: 'running', attempt: l.attempt }, { pid: l.handle.pid, pidStart: l.handle.startTime });
    }
  }

  /**
   * After a restart: the stages left running on hosts are followed again, each by its key (the node answers
   * with the run it has; a stage it never received it starts now, once). Their graphs go on from here.
   */
  adoptRemote(): number {
    let adopted = 0;
    for (const g of this.repo.unfinished()) {
      for (const s of this.cache.stages(g.id)) {
        if (s.state !== 'running' || s.spec.host === undefined || this.attempts.isLive(g.id, s.stageId)) continue;
        this.attempts.spawnRemote(s, g.owner, s.spec.host);
        adopted++;
      }
    }
    if (adopted > 0) this.scheduleTick();
    return adopted;
  }

  /**
   * Graceful close: every live attempt here is ended and recorded cancelled, so nothing outlives the room
   * process. A graph with a stage running on a host is left running: that stage goes on there, and the next
   * room adopts it and the graph.
   */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    for (const id of this.unfinishedGraphIds()) {
      if (!this.cache.stages(id).some((s) => s.state === 'running' && s.spec.host !== undefined)) this.cancelling.set(id, 'the room closing');
    }
    const ending = this.attempts.endAll(graceMs);
    this.tick();
    // bounded (endAll): a stage still running in the database after this is reconciled (RUNNER_RESTARTED) by the next start
    await ending;
    this.tick();
    this.closed = true;
    this.pendingPids.close();
    this.backoff.close();
    this.attempts.close();
  }
}
