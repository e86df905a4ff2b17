import type { Live } from './attempt-supervisor';

/** The longest a started attempt's pid waits for a tick to write it (a stage's exit usually brings one sooner). */
const PID_RECORD_MS = 50;

/**
 * Started attempts whose pid and start time a coming tick writes, inside its own commit (no commit of their own:
 * with synchronous=FULL that was a second fsync per stage). A tick comes within PID_RECORD_MS at the latest.
 * The pid arrives a message after the start (the spawner helper says it): an attempt whose pid is not known yet
 * waits for a later tick, and one that ended meanwhile is dropped.
 */
export class PendingPids {
  private readonly queued: Live[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly scheduleTick: () => void) {}

  add(attempts: Live[]): void {
    if (attempts.length === 0) return;
    this.queued.push(...attempts);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.scheduleTick();
    }, PID_RECORD_MS);
  }

  /** Takes every queued attempt: those whose pid is known, and those still `live` that wait for theirs. */
  take(live: (l: Live) => boolean): { known: Live[]; waiting: Live[] } {
    const all = this.queued.splice(0);
    return { known: all.filter((l) => l.handle.pid !== null), waiting: all.filter((l) => l.handle.pid === null && live(l)) };
  }

  /** Attempts taken by a tick whose commit failed: first in line again. */
  putBack(attempts: Live[]): void {
    this.queued.unshift(...attempts);
  }

  close(): void {
    clearTimeout(this.timer);
  }
}
