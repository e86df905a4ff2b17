import { Cron } from 'croner';
import { RoomError } from '../../common/errors';

/** The time zone of the machine the room runs on (a schedule's default). */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Refuses a name that is not an IANA time zone this machine knows, saying what to give. */
export function checkTimeZone(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    throw new RoomError('INVALID_INPUT', `timeZone "${timeZone}" is not a time zone this machine knows: give an IANA name such as Europe/Paris, America/New_York or UTC (default: ${machineTimeZone()}, this machine's)`);
  }
}

/** A cron pattern read in a time zone (croner), never started: the room asks it for due times only. */
export function cronOf(pattern: string, timeZone: string): Cron {
  const fields = pattern.trim().split(/\s+/);
  if (fields.length !== 5) {
    throw new RoomError('INVALID_INPUT', `cron "${pattern}" has ${fields.length} field${fields.length === 1 ? '' : 's'}: give five, minute hour day-of-month month day-of-week, e.g. "0 3 * * *" (03:00 every day) or "*/15 * * * *" (every 15 minutes)`);
  }
  let cron: Cron;
  try {
    cron = new Cron(pattern, { timezone: timeZone, paused: true });
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : 'it does not read as one';
    throw new RoomError('INVALID_INPUT', `cron "${pattern}" is not a cron pattern (${why}): five fields, minute hour day-of-month month day-of-week, e.g. "0 3 * * *"`);
  }
  if (cron.nextRun(new Date()) === null) throw new RoomError('INVALID_INPUT', `cron "${pattern}" is never due again: check the day and month fields`);
  return cron;
}

/** The next due time after `after`, or null when the pattern has none left. */
export function nextDue(cron: Cron, after: Date): Date | null {
  return cron.nextRun(after);
}

/** The most due times one look walks (a minute's pattern over ~7 days); a longer gap is counted from its end. */
const MAX_WALK = 10_000;

/**
 * The due times in (after, upTo], oldest first: the newest `keep` of them, and how many there were (a
 * count past MAX_WALK is "at least": the walk starts from the newest ones then).
 */
export function dueBetween(cron: Cron, after: Date, upTo: Date, keep: number): { times: Date[]; count: number; atLeast: boolean } {
  const times: Date[] = [];
  let count = 0;
  let cursor: Date | null = after;
  while (count < MAX_WALK) {
    cursor = cron.nextRun(cursor);
    if (cursor === null || cursor.getTime() > upTo.getTime()) return { times, count, atLeast: false };
    count++;
    times.push(cursor);
    if (times.length > keep) times.shift();
  }
  // too many to walk: the newest `keep` before upTo (plus upTo itself when it is due), counted as "at least"
  const newest = cron.previousRuns(keep, new Date(upTo.getTime() + 1)).filter((d) => d.getTime() > after.getTime());
  return { times: newest.reverse(), count, atLeast: true };
}
