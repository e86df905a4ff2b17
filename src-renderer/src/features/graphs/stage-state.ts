/** A mark that differs per state, for readers who cannot tell the colours apart. */
export const STATE_MARK: Record<string, string> = {
  pending: '○',
  running: '◔',
  completed: '✓',
  failed: '✕',
  cancelled: '⊘',
  skipped: '↷',
};

/** The state in words beside its colour and mark: colour is never the only cue (a failed graph reads "failed"). */
export function stateLabel(state: string, retrying = false): string {
  return retrying ? `${STATE_MARK[state] ?? '•'} waiting to retry` : `${STATE_MARK[state] ?? '•'} ${state}`;
}

export function isEnded(state: string): boolean {
  return state !== 'pending' && state !== 'running';
}

/** "3 min ago" style age of an ISO time, for the list. */
export function ageOf(iso: string, now: number = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

export function durationText(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The stage states a person can filter a graph by, in the order a run moves through them. */
export const STAGE_STATES_SHOWN = ['pending', 'running', 'completed', 'failed', 'cancelled', 'skipped'] as const;
