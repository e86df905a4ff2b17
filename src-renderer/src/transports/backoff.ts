/** Reconnect pacing: doubling from `baseMs` up to `maxMs`, with up to 20% jitter so many tabs do not knock together. */
export const RECONNECT = { baseMs: 250, maxMs: 8_000 } as const;

export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const raw = Math.min(RECONNECT.maxMs, RECONNECT.baseMs * 2 ** Math.max(0, attempt));
  return Math.round(raw * (0.8 + 0.2 * random()));
}
