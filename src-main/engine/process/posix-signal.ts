import type { ProcessIdentity } from './process-table';

/**
 * The POSIX way to end processes, shared by the /proc and ps backends: the group first (it catches children
 * forked since the last look), then each target whose start time is still the one it was found with — read
 * right before the signal, so a recycled pid is left alone.
 */
export function signalPosix(
  targets: ProcessIdentity[],
  signal: NodeJS.Signals,
  pgid: number | undefined,
  startTimes: (pids: number[]) => Map<number, string>,
): void {
  if (pgid !== undefined) {
    try {
      process.kill(-pgid, signal);
    } catch {
      // the group may be empty already; tagged stragglers are signalled one by one below
    }
  }
  const now = targets.length > 0 ? startTimes(targets.map((p) => p.pid)) : new Map<number, string>();
  for (const p of targets) {
    if (now.get(p.pid) !== p.startTime) continue;
    try {
      process.kill(p.pid, signal);
    } catch {
      // already gone
    }
  }
}
