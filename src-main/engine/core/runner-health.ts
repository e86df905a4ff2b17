import type { HealthProblem, RunnerHealthView } from '../../common/dto';
import { isDiskFullError, RoomError } from '../../common/errors';

/**
 * What the runner cannot do right now (a full disk, a failing database), readable through room_info: the
 * event ring itself lives on the failing disk, so this is kept in memory. A problem is reported on each
 * failure and cleared by the first success of its area; the log gets one line when a problem starts or
 * changes, and one when it clears, never a line (or a stack) per retry.
 */
export class RunnerHealth {
  private readonly problems = new Map<HealthProblem['area'], HealthProblem>();

  constructor(
    private readonly now: () => string,
    /** The room's folder, named in a full disk's message. */
    private readonly folder: string,
    private readonly log: (line: string) => void = (line) => console.error(line),
  ) {}

  /** Records a failure of `area`; returns whether it is a new or different problem (a line was logged). */
  failed(area: HealthProblem['area'], error: unknown, detail = ''): boolean {
    const { code, message } = describeFailure(error, this.folder);
    const known = this.problems.get(area);
    if (known && known.code === code && known.message === message) {
      known.failures++;
      return false;
    }
    this.problems.set(area, { area, code, message, since: known?.since ?? this.now(), failures: (known?.failures ?? 0) + 1 });
    this.log(`[${area}] ${code}: ${message}${detail}`);
    return true;
  }

  /** `area` works again. */
  ok(area: HealthProblem['area'], what: string): void {
    const known = this.problems.get(area);
    if (!known) return;
    this.problems.delete(area);
    this.log(`[${area}] ${what} again (after ${known.failures} failed ${known.failures === 1 ? 'try' : 'tries'} since ${known.since})`);
  }

  view(): RunnerHealthView {
    return this.problems.size === 0 ? { state: 'ok' } : { state: 'degraded', problems: [...this.problems.values()].map((p) => ({ ...p })) };
  }
}

/** A failure as one line: its stable code and the first line of its message (never a stack). */
export function describeFailure(error: unknown, folder: string): { code: string; message: string } {
  if (error instanceof RoomError) return { code: error.code, message: error.message };
  if (isDiskFullError(error)) return { code: 'DISK_FULL', message: `no space left on the disk holding ${folder}: free space there` };
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  return { code: typeof code === 'string' ? code : 'INTERNAL', message };
}

/**
 * What a client is told when a change could not be stored because the disk is full: the folder to free space
 * in, and that nothing was changed (the transaction rolled back). Anything else is returned as it is.
 */
export function diskFullRefusal(error: unknown, folder: string): unknown {
  if (!isDiskFullError(error)) return error;
  return new RoomError('DISK_FULL', `the disk holding the room (${folder}) is full: free space on it, then try again (this change was not made)`);
}
