import { isRoomError, type ErrorCode } from '../common/errors';
import { UsageError } from './args';

/** The CLI door's one error table: what `ce` and `commonroom` exit with. */
export const EXIT = {
  ok: 0,
  /** The room refused or could not do it (the message says why and what to do); also a graph that did not complete. */
  refused: 1,
  /** The command line itself is wrong: an unknown command or option, a missing argument. */
  usage: 2,
} as const;

/**
 * The exit code for each engine error code. Every refusal is 1 today (scripts tell a refusal from a usage
 * mistake, and read the reason from stderr); a code that needs its own exit status gets it here, and only here.
 */
export const EXIT_FOR_ERROR: Record<ErrorCode, number> = {
  INVALID_INPUT: EXIT.refused,
  NOT_FOUND: EXIT.refused,
  FORBIDDEN: EXIT.refused,
  UNAUTHENTICATED: EXIT.refused,
  CONFLICT: EXIT.refused,
  LIMIT_EXCEEDED: EXIT.refused,
  ROOM_LOCKED: EXIT.refused,
  ROOM_UNSAFE: EXIT.refused,
  ROOM_TOO_NEW: EXIT.refused,
  UNAVAILABLE: EXIT.refused,
  DISK_FULL: EXIT.refused,
  INTERNAL: EXIT.refused,
};

/** The exit code for anything a command threw. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (isRoomError(error)) return EXIT_FOR_ERROR[error.code];
  return EXIT.refused;
}

/**
 * Runs a CLI's main and exits with its code; a thrown error is printed as `<program>: <message>` (the stack
 * only with COMMONROOM_DEBUG) and exits with the code from the table. The one error handler of both CLIs.
 */
export function runCli(program: string, main: (argv: string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`${program}: ${error instanceof Error ? error.message : String(error)}`);
      if (process.env.COMMONROOM_DEBUG && error instanceof Error && !(error instanceof UsageError)) console.error(error.stack);
      process.exit(exitCodeFor(error));
    },
  );
}
