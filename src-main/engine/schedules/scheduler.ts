import type { MethodInput, MethodName, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { dueInZone, MAX_SCHEDULE_RUNS_KEPT, type ScheduleRunView } from '../../common/methods/schedules';
import type { EngineContext, EventInput } from '../room/index';
import type { RunDecision, ScheduleRecord, ScheduleRepo } from '../store/schedules';
import { toCaller } from '../store/participants';
import { cronOf, dueBetween, nextDue } from './due-times';
import { scheduleEventData } from './schedule-events';

/** Engine.call, handed in by engine.ts: a schedule starts its graph or agent through the contract, as its owner. */
export type Invoke = <M extends MethodName>(caller: Caller, method: M, input: MethodInput<M>) => Promise<MethodOutputs[M]>;

/** Missed due times recorded one by one per look (a longer gap is counted in its event, the newest recorded). */
const MISSED_RECORDED = 200;

/**
 * Decides each due time of the room's schedules, once. A look at the clock (at each due time, at least every
 * `scheduleTickMs`, at the room's start and when a schedule is added) walks each schedule's due times since
 * the last one decided and records, in one transaction with its events and the move of `decided_through`:
 *  - the due time to run now (on time; or, after a gap, the newest one when the catch-up policy is "once") as
 *    `starting` — or `skipped` when its previous run is still going;
 *  - every other one as `missed`: before this room process started (the room was not running), or reached
 *    later than `scheduleLateMs` (the machine slept, the room was busy).
 * Only then is the run started (through the contract, as the schedule's owner), and its row becomes `ran` with
 * what it started, or `failed` with why. A room stopped between the two leaves `starting`, read as failed at
 * the next start: a due time is decided once and started at most once.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private recovered = false;
  private readonly startedAt: number;

  constructor(
    private readonly ctx: EngineContext,
    private readonly repo: ScheduleRepo,
    private readonly invoke: Invoke,
  ) {
    this.startedAt = Date.parse(ctx.now());
  }

  /**
   * At the room's start: the first look once this process serves the room. A process that only opened it for a
   * moment (a `ce` command while no room process runs) never serves it, and so never decides or starts a run.
   */
  start(): void {
    void this.look();
  }

  /** Looks at the clock now (after the look already running, if any). */
  look(): Promise<void> {
    if (this.closed) return this.chain;
    clearTimeout(this.timer);
    this.chain = this.chain
      .then(() => (this.serving() ? this.tick() : undefined))
      .catch((error: unknown) => console.error('[schedules] a look at the schedules failed:', error instanceof Error ? error.message : error))
      .finally(() => this.arm());
    return this.chain;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.chain;
  }

  /** This process serves the room (its MCP endpoint is up): agents it starts have a room to connect to. */
  private serving(): boolean {
    const runner = this.ctx.room.runningProcess();
    const now = runner !== null && runner.pid === process.pid;
    if (now && !this.recovered) {
      this.recovered = true;
      // the runs a stopped room was starting read failed: never started again
      for (const run of this.repo.starting()) {
        this.finish(this.repo.byId(run.scheduleId), run.dueAt, run.late, 'failed', {}, 'the room stopped while it was starting this run: it is not started again (a due time runs once at most)');
      }
    }
    return now;
  }

  private arm(): void {
    if (this.closed) return;
    const now = new Date(this.ctx.now());
    // not serving yet (the endpoint comes up after the features start): look again shortly
    let wait = this.recovered ? this.ctx.limits.scheduleTickMs : 250;
    for (const s of this.repo.active()) {
      try {
        const next = nextDue(cronOf(s.cron, s.timeZone), new Date(Math.max(now.getTime(), Date.parse(s.decidedThrough))));
        if (next) wait = Math.min(wait, next.getTime() - now.getTime() + 50);
      } catch {
        // a pattern this croner no longer reads is reported by the tick
      }
    }
    this.timer = setTimeout(() => void this.look(), Math.max(50, wait));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    for (const schedule of this.repo.active()) {
      if (this.closed) return;
      try {
        await this.decide(schedule);
      } catch (error) {
        // one schedule that cannot be decided (its pattern no longer reads) leaves the others theirs
        console.error(`[schedules] ${schedule.id} (${schedule.name}) could not be decided:`, error instanceof Error ? error.message : error);
      }
    }
  }

  private async decide(s: ScheduleRecord): Promise<void> {
    const now = new Date(this.ctx.now());
    const { times, count, atLeast } = dueBetween(cronOf(s.cron, s.timeZone), new Date(s.decidedThrough), now, MISSED_RECORDED);
    if (count === 0) return;
    const late = (d: Date) => d.getTime() < this.startedAt || now.getTime() - d.getTime() > this.ctx.limits.scheduleLateMs;
    const onTime = times.filter((d) => !late(d));
    const newest = times[times.length - 1] as Date;
    const runAt = onTime.length > 0 ? newest : s.catchUp === 'once' ? newest : null;
    const runLate = runAt !== null && late(runAt);
    const owner = this.ownerOf(s);
    const going = runAt !== null && owner ? await this.stillGoing(s, owner) : null;

    const decisions: RunDecision[] = times
      .filter((d) => d !== runAt)
      .map((d) => ({ dueAt: d.toISOString(), outcome: 'missed', late: false, reason: this.missedWhy(s, d, onTime.length > 0) }));
    if (runAt) decisions.push({ dueAt: runAt.toISOString(), outcome: going ? 'skipped' : 'starting', late: runLate, reason: going });
    const missed = count - (runAt ? 1 : 0);
    const recorded = this.ctx.commit(() => {
      if (this.repo.byId(s.id)?.removedAt !== null) return { value: [] as RunDecision[], events: [] };
      const done = this.repo.decide(s.id, decisions, newest.toISOString(), now.toISOString(), MAX_SCHEDULE_RUNS_KEPT);
      const events: EventInput[] = [];
      const base = scheduleEventData(s);
      if (missed > 0) {
        const first = decisions[0]?.dueAt ?? newest.toISOString();
        const whileDown = times.some((d) => d !== runAt && d.getTime() < this.startedAt);
        events.push({ kind: 'schedule.missed', actor: null, subject: s.id, data: { ...base, count: missed, atLeast, first, last: decisions.filter((d) => d.outcome === 'missed').at(-1)?.dueAt ?? first, whileDown, caughtUp: runLate && !going } });
      }
      const skipped = done.find((d) => d.outcome === 'skipped');
      if (skipped) events.push({ kind: 'schedule.skipped', actor: null, subject: s.id, data: { ...base, dueAt: skipped.dueAt, reason: skipped.reason } });
      return { value: done, events };
    });
    const toStart = recorded.find((d) => d.outcome === 'starting');
    if (toStart) await this.run(s, owner, toStart.dueAt, toStart.late);
  }

  private missedWhy(s: ScheduleRecord, d: Date, ranSince: boolean): string {
    const policy = ranSince ? 'a later due time ran instead' : s.catchUp === 'skip' ? 'not run: its catch-up policy is skip' : 'a later due time was caught up instead';
    // the due time is the record's own: the reason says why only
    const when = d.getTime() < this.startedAt ? 'the room was not running' : 'the room reached it late (the machine slept or the room was busy)';
    return `${when}; ${policy}`;
  }

  private ownerOf(s: ScheduleRecord): Caller | null {
    const record = this.ctx.room.participants.byName(s.owner);
    return record && record.revokedAt === null ? toCaller(record) : null;
  }

  /** Why a new run must wait (its previous run still going), or null. */
  private async stillGoing(s: ScheduleRecord, owner: Caller): Promise<string | null> {
    const previous = this.repo.lastStarted(s.id);
    if (!previous) return null;
    try {
      if (previous.graphId) {
        const { graph } = await this.invoke(owner, 'tasks_status', { graphId: previous.graphId, stages: false });
        if (graph.state === 'pending' || graph.state === 'running') return `the previous run (graph ${previous.graphId}, due ${dueInZone(previous.dueAt, s.timeZone)}) is still ${graph.state}`;
      } else if (previous.handoffId) {
        const { handoff } = await this.invoke(owner, 'handoff_get', { handoffId: previous.handoffId });
        if (handoff.status === 'open' || handoff.status === 'accepted') return `the previous run (handoff ${previous.handoffId}, due ${dueInZone(previous.dueAt, s.timeZone)}) is still being worked on`;
      }
    } catch {
      // gone or no longer readable: nothing to wait for
    }
    return null;
  }

  private async run(s: ScheduleRecord, owner: Caller | null, dueAt: string, late: boolean): Promise<void> {
    if (!owner) return this.finish(s, dueAt, late, 'failed', {}, `its owner ${s.owner} is no longer an active participant (its token was revoked): remove the schedule, or add it again as someone who may run it`);
    try {
      if (s.kind === 'graph') {
        const spec = { ...s.spec, name: (s.spec.name as string | undefined) ?? s.name } as MethodInput<'tasks_run'>;
        const out = await this.invoke(owner, 'tasks_run', spec);
        this.finish(s, dueAt, late, 'ran', { graphId: out.graphId }, null);
      } else {
        const out = await this.invoke(owner, 'agent_start', s.spec as MethodInput<'agent_start'>);
        this.finish(s, dueAt, late, 'ran', { handoffId: out.agent.handoffId, shellId: out.agent.shellId }, null);
      }
    } catch (error) {
      this.finish(s, dueAt, late, 'failed', {}, `the room could not start it: ${error instanceof Error ? error.message : 'unknown error'}`);
    }
  }

  private finish(s: ScheduleRecord | null, dueAt: string, late: boolean, outcome: 'ran' | 'failed', started: Partial<Pick<ScheduleRunView, 'graphId' | 'handoffId' | 'shellId'>>, reason: string | null): void {
    if (!s) return;
    try {
      this.ctx.commit(() => {
        this.repo.finish(s.id, dueAt, outcome, started, reason);
        return { value: undefined, events: [{ kind: outcome === 'ran' ? 'schedule.ran' : 'schedule.failed', actor: s.owner, subject: s.id, data: { ...scheduleEventData(s), dueAt, late, ...started, ...(reason ? { reason } : {}) } }] };
      });
    } catch (error) {
      console.error(`[schedules] could not record the run of ${s.id} due ${dueAt}:`, error instanceof Error ? error.message : error);
    }
  }
}
