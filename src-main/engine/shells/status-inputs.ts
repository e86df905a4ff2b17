import type { StatusInputs } from './shell-status';
import { waitsForKeys } from './waits-for-keys';
import type { ShellMarks } from './shell-marks';

/** What of a shell (pty-shell.ts) the inputs read. */
export interface StatusSource {
  readonly exit: { exitCode: number | null } | null;
  readonly lastOutputAt: number;
  readonly lastInputAt: number;
  readonly screen: { visibleLines(): string[] };
  readonly marks: Pick<ShellMarks, 'last'> | null;
  readonly process: { pid: number };
}

/**
 * What a shell's status tracker reads of it (shell-status.ts), as one object of methods over the shell rather
 * than a closure each: the tracker asks only when it decides, and a room of idle shells pays for every closure.
 */
export class ShellStatusInputs implements StatusInputs {
  constructor(private readonly shell: StatusSource) {}

  alive(): boolean {
    return this.shell.exit === null;
  }

  exitCode(): number | null {
    return this.shell.exit?.exitCode ?? null;
  }

  lastOutputAt(): number {
    return this.shell.lastOutputAt;
  }

  lastInputAt(): number {
    return this.shell.lastInputAt;
  }

  screen(): string[] {
    return this.shell.screen.visibleLines();
  }

  commandRunning(): boolean {
    return this.shell.marks?.last?.kind === 'C';
  }

  waitsForKeys(): boolean {
    return waitsForKeys(this.shell.process.pid);
  }
}
