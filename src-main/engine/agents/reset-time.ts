/**
 * When a client's usage limit resets, from the words its screen gives: a clock time ("3am", "3:15pm",
 * "03:00", "3:00 AM", with an IANA zone in brackets as Claude Code adds: "3am (Europe/London)"), a date and a
 * time ("Dec 6, 3am", "Dec 6 at 3:00 PM"), or a wait ("in 2h 30m", "in 21.5s", "in 5 days 2 hours",
 * "21s", opencode's "~2 days"). A bare clock time is the next one after `now` (today, or tomorrow when it has passed). Null when the
 * words give no time the room can be sure of.
 */
const UNIT_MS: Record<string, number> = { w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

export function parseResetTime(words: string, now: Date): Date | null {
  const text = words.trim().toLowerCase();
  const wait = waitOf(text);
  if (wait !== null) return new Date(now.getTime() + wait);
  const zone = /\(([a-z_]+\/[a-z_/+-]+|utc)\)/i.exec(words)?.[1] ?? (/\b(utc|gmt)\b/.test(text) ? 'UTC' : null);
  const clock = /(?:^|[\s,(]|at\s)(\d{1,2})(?::(\d{2}))?(?::\d{2})?\s*([ap])\.?m?\.?\b|(?:^|[\s,(]|at\s)([01]?\d|2[0-3]):(\d{2})\b/.exec(text);
  if (!clock) return null;
  let hour: number;
  let minute: number;
  if (clock[1] !== undefined) {
    hour = Number(clock[1]) % 12 + (clock[3] === 'p' ? 12 : 0);
    minute = Number(clock[2] ?? 0);
  } else {
    hour = Number(clock[4]);
    minute = Number(clock[5]);
  }
  if (hour > 23 || minute > 59) return null;
  const date = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})\b/.exec(text);
  const offset = (at: Date) => zoneOffsetMs(zone, at);
  // the wall-clock time in the zone (the room's own when none is named), as an instant
  const at = (y: number, mo: number, d: number) => {
    const guess = Date.UTC(y, mo, d, hour, minute);
    return new Date(guess - offset(new Date(guess - offset(new Date(guess)))));
  };
  const here = new Date(now.getTime() + offset(now));
  if (date) {
    const month = MONTHS.indexOf(date[1] as string);
    let when = at(here.getUTCFullYear(), month, Number(date[2]));
    if (when.getTime() < now.getTime() - 86_400_000) when = at(here.getUTCFullYear() + 1, month, Number(date[2]));
    return when;
  }
  let when = at(here.getUTCFullYear(), here.getUTCMonth(), here.getUTCDate());
  if (when.getTime() <= now.getTime()) when = at(here.getUTCFullYear(), here.getUTCMonth(), here.getUTCDate() + 1);
  return when;
}

/** "in 2h 30m", "in 5 days 2 hours 3 minutes", "retry in 21.5s", "21s", "~2 days" (opencode's, whole days and weeks): milliseconds, or null. */
function waitOf(text: string): number | null {
  const m = /(?:^|\bin\s+)~?((?:\d+(?:\.\d+)?\s*(?:w|weeks?|d|days?|h|hrs?|hours?|m|mins?|minutes?|s|secs?|seconds?)\b[\s,]*(?:and\s+)?)+)/.exec(text);
  if (!m) return null;
  let total = 0;
  for (const part of (m[1] as string).matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)) {
    const unit = (part[2] as string)[0] as string;
    total += Number(part[1]) * (UNIT_MS[unit === 'm' && /^mo/.test(part[2] as string) ? 'x' : unit] ?? 0);
  }
  return total > 0 ? Math.round(total) : null;
}

/** How far `zone`'s wall clock is ahead of UTC at `at` (the room process's own zone when null or unknown). */
function zoneOffsetMs(zone: string | null, at: Date): number {
  if (zone) {
    try {
      const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(at);
      const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
      return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(at.getTime() / 1000) * 1000;
    } catch {
      // not a zone this runtime knows: the room's own
    }
  }
  return -at.getTimezoneOffset() * 60_000;
}
