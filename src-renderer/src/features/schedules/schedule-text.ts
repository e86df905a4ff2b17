import { Cron } from 'croner';
import type { ScheduleOutcome, ScheduleRunView } from '../../../../src-main/common/methods/schedules';

/** "in 12 min", "in 1 h 10 min", "in 14 h", "in 3 days": how far a due time is from now. */
export function fromNow(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  if (ms < 60_000) return 'in under a minute';
  const min = Math.round(ms / 60_000);
  if (min < 60) return `in ${min} min`;
  const h = Math.floor(min / 60);
  if (h < 10) return `in ${h} h${min % 60 ? ` ${min % 60} min` : ''}`;
  if (h < 48) return `in ${Math.round(min / 60)} h`;
  return `in ${Math.round(min / 60 / 24)} days`;
}

/** The badge of an outcome: what it says and how it is coloured. */
export function outcomeBadge(run: Pick<ScheduleRunView, 'outcome' | 'late'>): { text: string; tone: string } {
  const tones: Record<ScheduleOutcome, string> = { ran: 'badge-ok', starting: 'badge-idle', skipped: 'badge-warn', missed: 'badge-warn', failed: 'badge-fail' };
  return { text: run.outcome === 'ran' && run.late ? 'ran late' : run.outcome, tone: tones[run.outcome] };
}

/**
 * The next due times of a pattern as the person types it (croner, as the room reads it), or what to fix. The
 * room checks again when it is added; this only answers sooner.
 */
export function previewCron(pattern: string, timeZone: string, count = 3): { next: string[] } | { problem: string; field: 'cron' | 'zone' } {
  const fields = pattern.trim().split(/\s+/).filter((f) => f !== '');
  if (fields.length === 0) return { field: 'cron', problem: 'Give a cron pattern: minute hour day-of-month month day-of-week, e.g. 0 3 * * * (03:00 every day).' };
  if (fields.length !== 5) return { field: 'cron', problem: `That pattern has ${fields.length} field${fields.length === 1 ? '' : 's'}: give five — minute hour day-of-month month day-of-week, e.g. 0 3 * * *.` };
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone });
  } catch {
    return { field: 'zone', problem: `"${timeZone}" is not a time zone this browser knows: give an IANA name such as Europe/Paris or UTC.` };
  }
  try {
    const cron = new Cron(pattern, { timezone: timeZone, paused: true });
    const next = cron.nextRuns(count).map((d) => new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(d));
    return next.length > 0 ? { next } : { field: 'cron', problem: 'That pattern is never due again: check its day and month fields.' };
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : 'it does not read as one';
    return { field: 'cron', problem: `That is not a cron pattern (${why}).` };
  }
}
