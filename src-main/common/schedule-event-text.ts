import { dueInZone } from './methods/schedules';

interface ScheduleEventData {
  name?: string;
  timeZone?: string;
  dueAt?: string;
  late?: boolean;
  graphId?: string;
  handoffId?: string;
  reason?: string;
  count?: number;
  atLeast?: boolean;
  first?: string;
  last?: string;
  whileDown?: boolean;
  caughtUp?: boolean;
  catchUp?: 'once' | 'skip';
}

/**
 * A schedule event as one line a person reads (Activity, the summary): "nightly build ran (due Sat 5 Dec
 * 2026, 03:00 (UTC)): graph gr_…". Null for an event that is not a schedule's.
 */
export function describeScheduleEvent(event: { kind: string; data: unknown }): string | null {
  if (!event.kind.startsWith('schedule.')) return null;
  const d = (event.data ?? {}) as ScheduleEventData;
  const name = `schedule "${d.name ?? '?'}"`;
  const zone = d.timeZone ?? 'UTC';
  const due = (iso: string | undefined) => (iso ? dueInZone(iso, zone) : 'an unknown time');
  switch (event.kind) {
    case 'schedule.added':
      return `${name} was added`;
    case 'schedule.removed':
      return `${name} was removed: nothing more starts on it`;
    case 'schedule.ran':
      return `${name} ran${d.late ? ' late (caught up when the room started)' : ''} for ${due(d.dueAt)}: ${d.graphId ? `graph ${d.graphId}` : d.handoffId ? `agent task ${d.handoffId}` : 'started'}`;
    case 'schedule.skipped':
      return `${name} skipped ${due(d.dueAt)}: ${d.reason ?? 'its previous run is still going'}`;
    case 'schedule.failed':
      return `${name} could not run for ${due(d.dueAt)}: ${d.reason ?? 'the start was refused'}`;
    case 'schedule.missed': {
      const n = `${d.atLeast ? 'at least ' : ''}${d.count ?? 1} due time${d.count === 1 ? '' : 's'}`;
      const span = d.first && d.last && d.first !== d.last ? `from ${due(d.first)} to ${due(d.last)}` : `at ${due(d.first)}`;
      const why = d.whileDown ? ' while the room was not running' : `: the room reached ${d.count === 1 || d.count === undefined ? 'it' : 'them'} late`;
      return `${name} missed ${n}${why} (${span})${d.caughtUp ? '; caught up once now' : d.catchUp === 'skip' && d.whileDown ? '; not run: its catch-up policy is skip' : ''}`;
    }
    default:
      return null;
  }
}
