import { AGENT_WATCH_EVENTS, describeAgentWatchEvent } from './agent-watch-events';
import type { EventView } from './handoff-dto';
import { describeHostEvent } from './host-event-text';
import { describeScheduleEvent } from './schedule-event-text';
import { describeSpendEvent } from './spend-event-text';

/**
 * The kinds the overnight features record (issue 43): the agent watch's stalls and limits, envelopes, schedules
 * and hosts coming and going. Each reads as its feature's own sentence (the describers those features export);
 * what it counts as and the summary section it falls in are set here. common/event-text.ts spreads this table
 * into EVENT_KINDS.
 */

/** common/event-text.ts's EventKind and Tally, as that file reads them (it imports this one, not the reverse). */
interface Tally {
  one: string;
  many: string;
  bad?: boolean;
}
interface EventKind {
  text(e: EventView): string;
  tally?(e: EventView): Tally | null;
  section?(e: EventView): 'ended' | 'spend' | 'schedules' | null;
}

const bad = (one: string, many = one): Tally => ({ one, many, bad: true });
const good = (one: string, many = one): Tally => ({ one, many });
type Described = (e: { kind: string; subject: string | null; actor: string | null; data: unknown }) => string | null;
/** A describer's sentence; a kind it does not know (never here) still reads as its name. */
const by = (describe: Described) => (e: Parameters<Described>[0]) => describe(e) ?? `${e.kind.replace(/[._]/g, ' ')} ${e.subject ?? ''}`.trim();

/** Stalls and limits, as the agent watch records them (engine/agents/agent-watch.ts): what happened to a run. */
const WATCH_TALLY: Partial<Record<(typeof AGENT_WATCH_EVENTS)[number], { tally: Tally; ended: boolean }>> = {
  'agent.stalled': { tally: bad('stalled'), ended: true },
  'agent.stall_interrupted': { tally: good('interrupted when stalled'), ended: true },
  'agent.stall_restarted': { tally: good('restarted when stalled'), ended: true },
  'agent.stall_restart_failed': { tally: bad('could not be restarted'), ended: true },
  'agent.limited': { tally: bad('hit a limit'), ended: true },
  'agent.limit_resumed': { tally: good('resumed after a limit'), ended: true },
};

const WATCH_KINDS: Record<string, EventKind> = Object.fromEntries(
  AGENT_WATCH_EVENTS.map((kind): [string, EventKind] => {
    const t = WATCH_TALLY[kind];
    return [kind, { text: by(describeAgentWatchEvent), tally: () => t?.tally ?? null, section: () => (t?.ended ? 'ended' : null) }];
  }),
);

const SPEND_KINDS: Record<string, EventKind> = {
  'envelope.set': { text: by(describeSpendEvent) },
  'envelope.cleared': { text: by(describeSpendEvent) },
  'envelope.stopped': {
    // "stopped by its envelope: cost — claude-code (terminal sh_…) spent $0.52 of its $0.50"
    text: by(describeSpendEvent),
    tally: () => bad('stopped by its envelope', 'stopped by their envelopes'),
    section: () => 'spend',
  },
};

const SCHEDULE_KINDS: Record<string, EventKind> = {
  'schedule.added': { text: by(describeScheduleEvent) },
  'schedule.removed': { text: by(describeScheduleEvent) },
  'schedule.ran': { text: by(describeScheduleEvent), tally: () => good('schedule ran', 'schedules ran'), section: () => 'schedules' },
  'schedule.skipped': { text: by(describeScheduleEvent), tally: () => good('skipped'), section: () => 'schedules' },
  'schedule.missed': { text: by(describeScheduleEvent), tally: () => bad('missed'), section: () => 'schedules' },
  'schedule.failed': { text: by(describeScheduleEvent), tally: () => bad('schedule failed', 'schedules failed'), section: () => 'schedules' },
};

const HOST_KINDS: Record<string, EventKind> = {
  'host.added': { text: by(describeHostEvent) },
  'host.changed': { text: by(describeHostEvent) },
  'host.removed': { text: by(describeHostEvent) },
  'host.checked': { text: by(describeHostEvent), tally: (e) => ((e.data as { reachable?: unknown } | null)?.reachable ? null : bad('host unreachable', 'hosts unreachable')) },
  // a host lost overnight: its stages went on there unseen (the summary lists it with what ended)
  'host.unreachable': { text: by(describeHostEvent), tally: () => bad('host unreachable', 'hosts unreachable'), section: () => 'ended' },
  'host.reachable': { text: by(describeHostEvent) },
  'host.output_lost': { text: by(describeHostEvent), tally: () => bad('output lost on a host', 'outputs lost on hosts'), section: () => 'ended' },
  'host.input_lost': { text: by(describeHostEvent) },
};

export const OVERNIGHT_KINDS: Record<string, EventKind> = { ...WATCH_KINDS, ...SPEND_KINDS, ...SCHEDULE_KINDS, ...HOST_KINDS };
