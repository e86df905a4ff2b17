import { useEffect, useState } from 'react';

/** The time windows History and Activity filter by: a person asks "what happened in the last hour". */
export const TIME_RANGES = [
  { id: 'all', label: 'any time', ms: null },
  { id: '15m', label: 'last 15 minutes', ms: 15 * 60_000 },
  { id: '1h', label: 'last hour', ms: 60 * 60_000 },
  { id: '24h', label: 'last 24 hours', ms: 24 * 60 * 60_000 },
  { id: '7d', label: 'last 7 days', ms: 7 * 24 * 60 * 60_000 },
] as const;

export type TimeRangeId = (typeof TIME_RANGES)[number]['id'];

/** The start of a window as an ISO time (undefined: no bound). */
export function sinceOf(range: TimeRangeId, now: number = Date.now()): string | undefined {
  const ms = TIME_RANGES.find((r) => r.id === range)?.ms ?? null;
  return ms === null ? undefined : new Date(now - ms).toISOString();
}

/** A date and time a person reads: the time alone today, with the day otherwise (the full ISO time is the tooltip). */
export function whenText(iso: string, now: Date = new Date()): string {
  const at = new Date(iso);
  const sameDay = at.toDateString() === now.toDateString();
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return sameDay ? `today ${time}` : `${at.toLocaleDateString([], { month: 'short', day: 'numeric', year: at.getFullYear() === now.getFullYear() ? undefined : 'numeric' })} ${time}`;
}

/** How long ago, in words: "just now", "26 min ago", "3 h ago", "2 days ago". */
export function agoText(iso: string, now: number = Date.now()): string {
  const s = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  const d = Math.round(s / 86_400);
  return `${d} day${d === 1 ? '' : 's'} ago`;
}

/** The time now, advanced every `everyMs` while `ticking`: a window such as "last hour" rolls forward with it. */
export function useNow(ticking: boolean, everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [ticking, everyMs]);
  return now;
}
