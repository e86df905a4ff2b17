import { useEffect, useState } from 'react';

/** The time now, again every `everyMs` while `on` (a countdown, "stalled 12 min"); not ticking otherwise. */
export function useNow(everyMs: number, on = true): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    if (!on) return;
    setNow(new Date());
    const timer = setInterval(() => setNow(new Date()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs, on]);
  return now;
}
