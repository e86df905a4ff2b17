import type { RunnerHealth } from '../../core/runner-health';

/** The first wait after a failed tick, doubled per failure up to the cap. */
export const TICK_RETRY_FIRST_MS = 250;
export const TICK_RETRY_MAX_MS = 15_000;

/**
 * When the graph tick's commit fails (a full disk, an I/O error), its changes are kept and the tick is tried
 * again after a bounded exponential wait: 250 ms doubling to 15 s, so a full disk is neither hammered nor
 * left unnoticed for long once space is back. The runner's health says so (room_info), with one log line when
 * the failure starts or changes and one when it is over, never a stack per retry.
 */
export class TickBackoff {
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly health: RunnerHealth,
    private readonly retry: () => void,
  ) {}

  /** A retry is scheduled: other wake-ups wait for it. */
  get waiting(): boolean {
    return this.timer !== undefined;
  }

  /** The wait before the next try after `failures` failures in a row. */
  static delayAfter(failures: number): number {
    return Math.min(TICK_RETRY_MAX_MS, TICK_RETRY_FIRST_MS * 2 ** Math.min(Math.max(failures - 1, 0), 20));
  }

  failed(error: unknown): void {
    this.failures++;
    const delay = TickBackoff.delayAfter(this.failures);
    this.health.failed('graphs', error, `; stage changes are kept and tried again, waiting up to ${TICK_RETRY_MAX_MS / 1000} s between tries`);
    if (process.env.COMMONROOM_DEBUG) console.error(error);
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.retry();
    }, delay);
    this.timer.unref();
  }

  succeeded(): void {
    if (this.failures === 0) return;
    this.failures = 0;
    this.close();
    this.health.ok('graphs', 'stage changes are applied');
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
