import { z } from 'zod';
import { graphSpec } from '../graphs/graph-spec';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import { limitParam } from '../paging';
import { AGENT_METHODS } from './agents';

/** The most schedules one room holds (removed ones are not counted). */
export const MAX_SCHEDULES = 200;
/** Run records kept per schedule (the oldest go as new ones are recorded). */
export const MAX_SCHEDULE_RUNS_KEPT = 500;

/** What a missed due time does when the room starts again: run it once, late, or record it and skip it. */
export const CATCH_UP_POLICIES = ['once', 'skip'] as const;
export type CatchUpPolicy = (typeof CATCH_UP_POLICIES)[number];

/**
 * What became of one due time. `starting` only while the room starts it (a room stopped then reads `failed`
 * on its next start: a due time is never started twice).
 */
export const SCHEDULE_OUTCOMES = ['starting', 'ran', 'skipped', 'missed', 'failed'] as const;
export type ScheduleOutcome = (typeof SCHEDULE_OUTCOMES)[number];

const scheduleId = lazily(() =>
  z.string().regex(/^sc_[A-Za-z0-9_-]{8,43}$/, 'a schedule id is the id schedule_add answered (sc_…; schedule_list shows them)').describe('the schedule id (sc_…)'),
);

/** An agent task to start on the schedule: agent_start's input (no terminal size: no one watches it start), with its task required. */
const agentTarget = lazily(() =>
  AGENT_METHODS.agent_start
    .input()
    .omit({ cols: true, rows: true })
    .refine((a) => a.task !== undefined, { message: 'a scheduled agent needs task: what it is asked to do on each run', path: ['task'] }),
);

/**
 * Schedules: a task graph (tasks_run's spec) or an agent task (agent_start's input with task) started on a
 * cron schedule in a stated time zone. Every due time is recorded: ran, skipped (the previous run still going),
 * missed (the room was not running), or failed (the start was refused). A schedule runs as the participant who
 * added it: a graph needs `write` (as tasks_run does), an agent needs `operate` (as agent_start does).
 */
export const SCHEDULE_METHODS = {
  schedule_add: {
    description:
      'Run a task graph (graph: the spec tasks_run takes) or an agent task (agent: the input agent_start takes, with task; needs operate) ' +
      'on a cron schedule: five fields, minute hour day-of-month month day-of-week, e.g. "0 3 * * *" (03:00 every day), read in ' +
      "timeZone (an IANA name such as Europe/Paris; default the room machine's). Runs as you. Each due time is recorded: ran, skipped " +
      '(the previous run is still going), missed (the room was not running), failed. catchUp says what a due time missed while the ' +
      'room was not running does when it starts again: "once" (default) runs it once, late; "skip" records it as missed and runs nothing.',
    capability: 'write',
    input: lazily(() =>
      z
        .object({
          name: z.string().trim().min(1, 'give the schedule a name').max(120).describe('a name for people reading the list'),
          cron: z.string().trim().min(1, 'give a cron pattern such as "0 3 * * *"').max(200).describe('five fields: minute hour day-of-month month day-of-week'),
          timeZone: z.string().trim().min(1).max(64).optional().describe("an IANA time zone (Europe/Paris, UTC); default the room machine's"),
          catchUp: z.enum(CATCH_UP_POLICIES).optional().describe('"once" (default): a due time missed while the room was down runs once when it starts; "skip": recorded as missed only'),
          graph: graphSpec().optional().describe('the graph to run: the spec tasks_run takes'),
          agent: agentTarget().optional().describe('the agent task to start: the input agent_start takes, with task'),
        })
        .strict()
        .refine((s) => (s.graph === undefined) !== (s.agent === undefined), { message: 'give what it runs: graph (a tasks_run spec) or agent (an agent_start input with task), one of them' }),
    ),
    mcpTool: true,
  },
  schedule_list: {
    description: 'The schedules you may see (yours; all of them with operate or approve): each with its next due time in its time zone and its last run.',
    capability: 'read',
    input: lazily(() => z.object({}).strict()),
    mcpTool: true,
    readOnly: true,
  },
  schedule_remove: {
    description: 'Remove a schedule: nothing more is started on it (a run already started goes on). Its records stay readable with schedule_runs.',
    capability: 'write',
    input: lazily(() => z.object({ scheduleId: scheduleId() }).strict()),
    mcpTool: true,
  },
  schedule_runs: {
    description: 'What became of each due time of a schedule, newest first: ran (with the graph or handoff it started), skipped, missed, failed, and why.',
    capability: 'read',
    input: lazily(() => z.object({ scheduleId: scheduleId(), limit: limitParam(MAX_SCHEDULE_RUNS_KEPT, 50, 'runs').optional() }).strict()),
    mcpTool: true,
    readOnly: true,
  },
} satisfies Record<string, MethodSpec>;

/** One due time of a schedule and what became of it. */
export interface ScheduleRunView {
  scheduleId: string;
  /** The due time (UTC, ISO). */
  dueAt: string;
  outcome: ScheduleOutcome;
  /** Started after its due time, when the room started again (catch-up "once"). */
  late: boolean;
  /** When the room decided it. */
  decidedAt: string;
  /** What it started: a graph's id, or an agent task's handoff (and its terminal). */
  graphId: string | null;
  handoffId: string | null;
  shellId: string | null;
  /** Why it did not run (skipped, missed, failed), in words. */
  reason: string | null;
}

export interface ScheduleView {
  id: string;
  name: string;
  cron: string;
  timeZone: string;
  kind: 'graph' | 'agent';
  /** What it runs, in a few words (the graph's name and stages, or the agent client and its task). */
  runs: string;
  catchUp: CatchUpPolicy;
  owner: string;
  createdAt: string;
  removedAt: string | null;
  /** The next due time (UTC, ISO); null once removed or when the pattern has none left. */
  nextDueAt: string | null;
  lastRun: ScheduleRunView | null;
}

export interface ScheduleOutputs {
  schedule_add: { schedule: ScheduleView };
  schedule_list: { schedules: ScheduleView[]; machineTimeZone: string };
  schedule_remove: { schedule: ScheduleView; removed: boolean };
  schedule_runs: { schedule: ScheduleView; runs: ScheduleRunView[] };
}

/** A due time as a person reads it in the schedule's zone: "Sat 5 Dec 2026, 03:00 (Europe/Paris)". */
export function dueInZone(iso: string, timeZone: string): string {
  try {
    const text = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
    return `${text} (${timeZone})`;
  } catch {
    return iso;
  }
}
