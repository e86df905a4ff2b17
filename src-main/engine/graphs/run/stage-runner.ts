import type { StageSpawner } from '../../process/stage-spawner';
import { killTree, processStartTime, findLeftovers, tagEnv, type ProcessIdentity } from '../../process/process-tree';
import type { StageErrorCode, StageExit } from '../../../common/graphs/stage-machine';
import { spawnTerminal, type Terminal } from '../../terminal/pty';
import type { StageTerminalHost } from '../../terminal/stage-terminal';
import type { StageLogWriter } from '../logs/stage-log';
import { stageLaunch } from '../../platform/stage-command';

/**
 * Turns a program, its arguments, its (tagged) environment and folder into what is started instead: the agents'
 * sandbox wrapping it, with a fixed environment of its own and the stage's variables set inside.
 */
export type StageLauncher = (file: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) => { file: string; args: string[]; env: NodeJS.ProcessEnv };

/** How one attempt of a stage is started. */
export interface AttemptRequest {
  /** Launches an agent's stage in the OS sandbox (process/agent-sandbox.ts); absent: as it is. */
  launch?: StageLauncher | undefined;
  taskId: string;
  /** Who submitted the graph (the owner of a tty stage's shell). */
  owner: string;
  /** Who shows a tty stage as a live shell (the shell registry); none in tests of the runner alone. */
  terminalHost?: StageTerminalHost | undefined;
  attempt: number;
  /** COMMONROOM_PROC_TAG of every process of this attempt; the next runner finds orphans by it. */
  tag: string;
  command: string | string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  tty: boolean;
  log: StageLogWriter;
  /** Starts the process of a stage without a terminal. */
  spawner: StageSpawner;
  /** Each complete output line (for log-pattern readiness). */
  onLine?: (line: string) => void;
}

export interface AttemptEnd extends StageExit {
  /** The process could not be started at all. */
  spawnError?: string;
  /** The runner lost sight of the process (its spawner ended): it was ended, and this says why. */
  lost?: string;
  /** Why the stage's log could not be written (with `endedBy` disk-full or log-failed). */
  logError?: string;
}

/** A running attempt: its identity, its end, and the one way to end it early. */
export interface AttemptHandle {
  pid: number | null;
  startTime: string | null;
  done: Promise<AttemptEnd>;
  /** SIGINT, SIGTERM, SIGKILL to the whole tree (group and tagged escapees), `graceMs` apart. First reason wins. */
  end(reason: NonNullable<StageExit['endedBy']>, graceMs: number): Promise<void>;
}

const MAX_LINE_CHARS = 4096;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Splits text into lines across chunks, bounding a line that never ends. */
function lineSplitter(onLine: ((line: string) => void) | undefined): (text: string) => void {
  let partial = '';
  return (text) => {
    if (!onLine) return;
    const parts = (partial + text).split(/\r?\n/);
    partial = (parts.pop() ?? '').slice(-MAX_LINE_CHARS);
    for (const line of parts) onLine(line.slice(0, MAX_LINE_CHARS));
    if (partial.length > 0) onLine(partial); // a prompt or "listening…" without a newline still counts
  };
}

/**
 * Starts one attempt in its own process group (a PTY session for tty stages), every process tagged, output
 * tagged by stream into the stage log in arrival order. When the main process exits, anything of the attempt
 * still alive (background children, setsid escapees) is ended too: a finished stage leaves nothing behind.
 */
export function startAttempt(req: AttemptRequest): AttemptHandle {
  const spawnedAt = Date.now();
  const launched = stageLaunch(req.command);
  const { verbatim } = launched;
  // a command line passed as written (Windows) has no sandbox to go through
  const tagged = tagEnv(req.env, req.tag);
  const { file, args, env } = req.launch && !verbatim ? req.launch(launched.file, launched.args, tagged, req.cwd) : { ...launched, env: tagged };
  let endedBy: StageExit['endedBy'];
  let root: ProcessIdentity | undefined;
  const split = lineSplitter(req.onLine);
  let resolveDone!: (end: AttemptEnd) => void;
  const done = new Promise<AttemptEnd>((r) => (resolveDone = r));
  const handle: AttemptHandle = {
    pid: null,
    startTime: null,
    done,
    async end(reason, graceMs) {
      endedBy ??= reason;
      await killTree({ tag: req.tag, pgid: handle.pid ?? undefined, root }, { signals: ['SIGINT', 'SIGTERM', 'SIGKILL'], graceMs });
    },
  };

  /** After the main process: sweep leftovers of this attempt, then report. */
  const finish = async (code: number | null, signal: string | null, closed: Promise<void>) => {
    await Promise.race([closed, sleep(200)]);
    const main = handle.pid !== null && handle.startTime !== null ? { pid: handle.pid, startTime: handle.startTime } : undefined;
    if (findLeftovers(req.tag, main, spawnedAt).length > 0) {
      await killTree({ tag: req.tag, pgid: handle.pid ?? undefined }, { signals: ['SIGTERM', 'SIGKILL'], graceMs: 500 });
      await Promise.race([closed, sleep(500)]);
    }
    resolveDone({ code, signal, endedBy });
  };

  if (req.tty) {
    startPty(req, file, verbatim ? args.join(' ') : args, env, handle, split, finish, (e) => resolveDone({ code: null, signal: null, spawnError: e }));
  } else {
    let closedResolve!: () => void;
    const closed = new Promise<void>((r) => (closedResolve = r));
    req.spawner.spawn(
      { file, args, cwd: req.cwd, env, verbatim },
      {
        started(pid, startTime) {
          handle.pid = pid;
          handle.startTime = startTime ?? processStartTime(pid);
          if (handle.startTime) root = { pid, startTime: handle.startTime };
          // an end asked for before it was known to run found nothing to signal then: it is ended now, at once
          if (endedBy !== undefined) void handle.end(endedBy, 0);
        },
        // the program could not be started (ENOENT, EACCES, a missing cwd)
        failed: (message) => resolveDone({ code: null, signal: null, spawnError: message }),
        output: (stream, chunk) => split(req.log.writeBytes(stream, chunk, req.onLine !== undefined)),
        closed: closedResolve,
        exited: (code, signal) => void finish(code, signal, closed),
        lost(message) {
          // its exit can no longer be seen: its tree is ended (found by its tag) and the attempt says why
          void killTree({ tag: req.tag, pgid: handle.pid ?? undefined, root }, { signals: ['SIGTERM', 'SIGKILL'], graceMs: 500 }).then(() =>
            resolveDone({ code: null, signal: null, endedBy, lost: message }),
          );
        },
      },
    );
  }
  return handle;
}

function startPty(
  req: AttemptRequest,
  file: string,
  args: string[] | string,
  env: NodeJS.ProcessEnv,
  handle: AttemptHandle,
  split: (text: string) => void,
  finish: (code: number | null, signal: string | null, closed: Promise<void>) => Promise<void>,
  fail: (message: string) => void,
): void {
  // the terminal is started with the attempt: the pid is known (and saved) the moment the attempt starts
  let term: Terminal;
  try {
    term = spawnTerminal({ file, args, cwd: req.cwd, env, cols: 120, rows: 32 });
  } catch (error) {
    fail((error as Error).message);
    return;
  }
  handle.pid = term.pid;
  handle.startTime = processStartTime(term.pid);
  // raw bytes, decoded once by the log (the same path as a pipe's): the shell view gets the same bytes
  term.onData((bytes) => split(req.log.writeBytes('stdout', bytes, req.onLine !== undefined)));
  req.terminalHost?.attach({ taskId: req.taskId, attempt: req.attempt, owner: req.owner, terminal: term });
  term.onExit((exit) => void finish(exit.exitCode, exit.signal, Promise.resolve()));
}

/** How an attempt's end reads in its log and on its stage. */
export function describeEnd(e: AttemptEnd, code: StageErrorCode | null): string {
  if (e.spawnError !== undefined) return `could not start: ${e.spawnError}`;
  if (e.lost !== undefined && e.endedBy === undefined) return `was ended: ${e.lost}, so its exit could not be seen`;
  switch (e.endedBy) {
    case 'cancel':
      return 'was cancelled';
    case 'timeout':
      return 'timed out and was ended';
    case 'readiness-timeout':
      return 'did not become ready in time and was ended';
    case 'service-stop':
      return 'was stopped: nothing needs it any more';
    case 'disk-full':
    case 'log-failed':
      return `was ended: its log could not be written (${e.logError ?? 'an I/O error'})`;
    default:
      break;
  }
  if (code === 'SIGNAL') return `was killed by ${e.signal}`;
  return `exited with code ${e.code}`;
}
