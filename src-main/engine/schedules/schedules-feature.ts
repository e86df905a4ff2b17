import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { MAX_SCHEDULES, type ScheduleView } from '../../common/methods/schedules';
import type { EngineContext, Feature } from '../room/index';
import { ScheduleRepo, type ScheduleRecord } from '../store/schedules';
import { checkTimeZone, cronOf, machineTimeZone, nextDue } from './due-times';
import { scheduleEventData } from './schedule-events';
import { Scheduler, type Invoke } from './scheduler';

type ScheduleMethods = 'schedule_add' | 'schedule_list' | 'schedule_remove' | 'schedule_runs';

/** What a schedule runs, in a few words. */
function runsText(s: Pick<ScheduleRecord, 'kind' | 'spec'>): string {
  if (s.kind === 'graph') {
    const stages = (s.spec.stages as { id: string }[] | undefined) ?? [];
    const name = typeof s.spec.name === 'string' ? `${s.spec.name}: ` : '';
    return `graph ${name}${stages.length} stage${stages.length === 1 ? '' : 's'} (${stages.slice(0, 4).map((x) => x.id).join(', ')}${stages.length > 4 ? ', …' : ''})`;
  }
  const task = String(s.spec.task ?? '');
  return `agent ${String(s.spec.client)}: ${task.length > 80 ? `${task.slice(0, 79)}…` : task}`;
}

/**
 * Schedules: a graph or an agent task started on a cron pattern in a stated time zone (croner reads it), and
 * the record of every due time (the Scheduler decides them). It owns the schedules and schedule_runs tables, and
 * starts what it runs through Engine.call as the schedule's owner (`invoke`), never by importing a feature.
 * Adding a graph needs `write` (as tasks_run); an agent needs `operate` (as agent_start). A participant sees and
 * removes its own schedules; `operate` (and `approve`, for reading) covers every schedule of the room.
 */
export function schedulesFeature(ctx: EngineContext, invoke: Invoke): Feature<ScheduleMethods> {
  const repo = new ScheduleRepo(ctx.room.db);
  const scheduler = ctx.room.readOnly ? null : new Scheduler(ctx, repo, invoke);
  const seesAll = (caller: Caller) => caller.capabilities.includes('operate') || caller.capabilities.includes('approve');

  function view(s: ScheduleRecord): ScheduleView {
    let next: Date | null = null;
    if (s.removedAt === null) {
      try {
        const now = new Date(ctx.now());
        next = nextDue(cronOf(s.cron, s.timeZone), new Date(Math.max(now.getTime(), Date.parse(s.decidedThrough))));
      } catch {
        next = null;
      }
    }
    return {
      id: s.id,
      name: s.name,
      cron: s.cron,
      timeZone: s.timeZone,
      kind: s.kind,
      runs: runsText(s),
      catchUp: s.catchUp,
      owner: s.owner,
      createdAt: s.createdAt,
      removedAt: s.removedAt,
      nextDueAt: next?.toISOString() ?? null,
      lastRun: repo.runs(s.id, 1)[0] ?? null,
    };
  }

  /** A schedule the caller may see, or NOT_FOUND (another's reads exactly like one that does not exist). */
  function visible(caller: Caller, id: string): ScheduleRecord {
    const s = repo.byId(id);
    if (!s || (s.owner !== caller.name && !seesAll(caller))) throw new RoomError('NOT_FOUND', `no schedule ${id} that you may see: schedule_list ("ce schedule list") shows them`);
    return s;
  }

  function add(caller: Caller, input: MethodInput<'schedule_add'>): MethodOutputs['schedule_add'] {
    const timeZone = checkTimeZone(input.timeZone ?? machineTimeZone());
    cronOf(input.cron, timeZone);
    if (input.agent && !caller.capabilities.includes('operate')) {
      throw new RoomError('FORBIDDEN', `a schedule that starts an agent needs the "operate" capability (as agent_start does), which ${caller.name} does not have: schedule a graph instead, or ask the person`);
    }
    if (repo.countActive() >= MAX_SCHEDULES) throw new RoomError('LIMIT_EXCEEDED', `the room already has ${MAX_SCHEDULES} schedules: remove one first ("ce schedule remove ID")`);
    const record: Omit<ScheduleRecord, 'removedAt' | 'decidedThrough'> = {
      id: ctx.ids.scheduleId(),
      name: input.name,
      cron: input.cron.trim().split(/\s+/).join(' '),
      timeZone,
      kind: input.graph ? 'graph' : 'agent',
      spec: (input.graph ?? input.agent) as Record<string, unknown>,
      catchUp: input.catchUp ?? 'once',
      owner: caller.name,
      createdAt: ctx.now(),
    };
    ctx.commit(() => {
      repo.insert(record);
      return { value: undefined, events: [{ kind: 'schedule.added', actor: caller.name, subject: record.id, data: { ...scheduleEventData({ ...record, removedAt: null, decidedThrough: record.createdAt }), cron: record.cron } }] };
    });
    void scheduler?.look();
    return { schedule: view(repo.byId(record.id) as ScheduleRecord) };
  }

  function remove(caller: Caller, input: MethodInput<'schedule_remove'>): MethodOutputs['schedule_remove'] {
    const s = visible(caller, input.scheduleId);
    if (s.owner !== caller.name && !caller.capabilities.includes('operate')) {
      throw new RoomError('FORBIDDEN', `schedule ${s.id} is ${s.owner}'s: only its owner or someone with the "operate" capability removes it`);
    }
    const removed = ctx.commit(() => {
      const changed = repo.remove(s.id, ctx.now());
      return { value: changed, events: changed ? [{ kind: 'schedule.removed', actor: caller.name, subject: s.id, data: scheduleEventData(s) }] : [] };
    });
    return { schedule: view(repo.byId(s.id) as ScheduleRecord), removed };
  }

  return {
    name: 'schedules',
    handlers: {
      schedule_add: add,
      schedule_list: (caller) => ({
        schedules: repo.active().filter((s) => s.owner === caller.name || seesAll(caller)).map(view),
        machineTimeZone: machineTimeZone(),
      }),
      schedule_remove: remove,
      schedule_runs: (caller, input) => {
        const s = visible(caller, input.scheduleId);
        return { schedule: view(s), runs: repo.runs(s.id, input.limit ?? 50) };
      },
    },
    start() {
      scheduler?.start();
    },
    close: () => scheduler?.close(),
  };
}
