import { isRoomError, type ErrorCode } from '../common/errors';
import { UsageError } from './args';

/** The CLI door's one error table: what `ce` and `commonroom` exit with. */
export const EXIT = {
  ok: 0,
  /** The room refused or could not do it (the message says why and what to do); also a graph that did not complete. */
  refused: 1,
  /** The command line itself is wrong: an unknown command or option, a missing argument. */
  usage: 2,
  /** Stopped by Ctrl-C (SIGINT) before it was done, as shells report it (128 + 2). */
  interrupted: 130,
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

/** Resolves once everything written to `stream` so far has been handed to the OS (a pipe may lag behind). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write('', () => resolve());
  });
}

/**
 * Runs a CLI's main and exits with its code; a thrown error is printed as `<program>: <message>` (the stack
 * only with COMMONROOM_DEBUG) and exits with the code from the table. The one error handler of both CLIs.
 * It exits only once stdout and stderr have drained: on a pipe, writes are asynchronous, and exiting at once
 * would cut `ce … --json | …` after the pipe's first 64 KiB.
 */
export function runCli(program: string, main: (argv: string[]) => Promise<number>): void {
  // a reader that went away (`ce … | head`) is not an error of the command: stop quietly
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok);
      throw error;
    });
  }
  const finish = (code: number) => {
    process.exitCode = code;
    void Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => process.exit(code));
  };
  main(process.argv.slice(2)).then(finish, (error: unknown) => {
    process.stderr.write(`${program}: ${error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.COMMONROOM_DEBUG && error instanceof Error && !(error instanceof UsageError)) process.stderr.write(`${error.stack ?? ''}\n`);
    finish(exitCodeFor(error));
  });
}
