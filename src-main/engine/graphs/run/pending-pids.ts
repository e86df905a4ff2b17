import type { Live } from './attempt-supervisor';

/** The longest a started attempt's pid waits for a tick to write it (a short stage's exit brings one sooner). */
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

  /**
   * Takes every queued attempt: those whose pid is known, and those still `live` that wait for theirs. The timer
   * goes with them: it was for them, and a tick that writes them makes it needless (left running, it brought a
   * tick of its own every PID_RECORD_MS while stages kept starting: a quarter more commits, each an fsync).
   */
  take(live: (l: Live) => boolean): { known: Live[]; waiting: Live[] } {
    clearTimeout(this.timer);
    this.timer = undefined;
    const all = this.queued.splice(0);
    return { known: all.filter((l) => l.handle.pid !== null), waiting: all.filter((l) => l.handle.pid === null && live(l)) };
  }

  /** Attempts taken by a tick whose commit failed: first in line again (the failed tick's retry writes them). */
  putBack(attempts: Live[]): void {
    this.queued.unshift(...attempts);
  }

  close(): void {
    clearTimeout(this.timer);
  }
}
