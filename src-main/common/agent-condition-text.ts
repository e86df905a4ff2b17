import type { ShellCondition } from './methods/shells';

/**
 * An agent's condition in words, the same in the Terminals screen, the Agents screen and `ce agent list`:
 * "stalled 12 min" (how long it has been quiet), "limited until 03:00" (its client's reset, in the reader's
 * own time; a date when it is not within a day), "limited" when the client showed no reset time.
 */
export function conditionText(condition: ShellCondition | null | undefined, now: Date = new Date()): string | null {
  if (condition?.limited) return condition.limited.until ? `limited until ${clock(new Date(condition.limited.until), now)}` : 'limited';
  if (condition?.stalled) return `stalled ${howLong(now.getTime() - Date.parse(condition.stalled.quietSince))}`;
  return null;
}

/** The countdown to a limited agent's resume: "resumes at 03:00 (in 2 h 5 min)", or null: none is set. */
export function resumeText(condition: ShellCondition | null | undefined, now: Date = new Date()): string | null {
  const at = condition?.limited?.resumeAt;
  if (!at) return null;
  const left = Date.parse(at) - now.getTime();
  return left > 0 ? `resumes at ${clock(new Date(at), now)} (in ${howLong(left)})` : 'resumes now';
}

/** "03:00", or "Dec 9 17:00" when it is not within the next day. */
export function clock(at: Date, now: Date = new Date()): string {
  const time = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  if (Math.abs(at.getTime() - now.getTime()) < 86_400_000) return time;
  return `${at.toLocaleString('en-US', { month: 'short', day: 'numeric' })} ${time}`;
}

/** "45 s", "12 min", "2 h 5 min", "3 d 4 h". */
export function howLong(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
