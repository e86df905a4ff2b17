import type { MethodInput } from '../../common/contract';
import { stripAnsi } from '../../common/ansi';
import { RoomError } from '../../common/errors';
import type { ShellRunResult } from '../../common/methods/shells';
import { encodeCursor } from '../core/paging';
import type { ShellMarks } from './shell-marks';
import { sentinelLine, statusProbeLine } from './shell-integration';
import type { ActiveRun, PtyShell } from './pty-shell';

export interface RunOptions {
  timeoutMs: number;
  /** How long to wait for a prompt: a new shell's first one, and the one after a run. */
  promptWaitMs: number;
  maxBytes: number;
  by: string;
  now: () => string;
  signal?: AbortSignal | undefined;
}

type WaitEnd = 'ready' | 'timeout' | 'exited' | 'cancelled';

/** After C-c in a sentinel shell, how long the line's own end mark may take before the shell is asked for `$?`. */
const PROBE_AFTER_MS = 500;

/**
 * shell_run: types one command at the shell's prompt and waits for its end. With marks (bash, zsh) the
 * command's output is what lies between its C and D marks and the exit code is D's; with a sentinel the typed
 * line prints the same marks itself. The command is never killed here: at the timeout it is left running, and
 * the next call (no command) waits on, or interrupts it with C-c.
 */
export async function runInShell(session: PtyShell, input: MethodInput<'shell_run'>, options: RunOptions): Promise<ShellRunResult> {
  const integration = session.spec.integration;
  const marks = session.marks;
  if (!integration || !marks) {
    throw new RoomError('CONFLICT', `shell ${session.id} is a graph stage's terminal: shell_run needs a shell opened with shell_open (use shell_io here)`);
  }
  const started = Date.now();
  const remaining = () => Math.max(0, options.timeoutMs - (Date.now() - started));
  let run = session.activeRun;

  if (input.command !== undefined) {
    if (!session.alive) throw new RoomError('CONFLICT', `shell ${session.id} has exited: open a new shell to run more`);
    // a run that ended while nobody waited (C-c typed with shell_io, a person at the keyboard) is over
    if (run && !run.done && endOf(session, marks, run) !== null) run.done = true;
    if (run && !run.done) {
      throw new RoomError('CONFLICT', `shell ${session.id} is still running ${JSON.stringify(run.command.slice(0, 80))}: call shell_run with only shellId to wait for it, or with interrupt: true to send C-c`);
    }
    let mode = integration.mode;
    if (mode === 'marks') {
      // type only at a prompt: text typed while the shell starts or runs something lands elsewhere
      const atPrompt = () => marks.last?.kind === 'A' || marks.last?.kind === 'B';
      const end = await waitUntil(session, atPrompt, Math.min(options.promptWaitMs, remaining()), options.signal);
      if (end === 'cancelled') throw new RoomError('CONFLICT', 'shell_run was cancelled before the command was typed: nothing ran');
      if (end === 'exited') throw new RoomError('CONFLICT', `shell ${session.id} has exited: open a new shell to run more`);
      if (end === 'timeout') {
        if (marks.last !== undefined) {
          throw new RoomError('CONFLICT', `shell ${session.id} is busy (a command typed with shell_io or by a person is running): wait for its prompt, or send C-c with shell_io`);
        }
        mode = 'sentinel'; // the user's start-up files replaced the hooks: mark this command ourselves
      }
    }
    const line = mode === 'marks' ? input.command : sentinelLine(integration.family, input.command, integration.nonce);
    run = { command: input.command, from: session.ring.end, mode, done: false, interrupted: false };
    session.activeRun = run;
    session.write(`${line}\r`, options.by, options.now());
  } else if (!run || run.done) {
    throw new RoomError('INVALID_INPUT', `no command is running in shell ${session.id} from shell_run: give \`command\` to run one`);
  }

  const current: ActiveRun = run;
  let probeFrom: number | null = null;
  if (input.interrupt) {
    if (!session.alive) throw new RoomError('CONFLICT', `shell ${session.id} has exited`);
    current.interrupted = true;
    session.write('\u0003', options.by, options.now());
    const probe = current.mode === 'sentinel' ? statusProbeLine(integration.family, integration.nonce) : null;
    if (probe) {
      // a POSIX shell drops the rest of an interrupted line, sentinel included: ask for `$?` once it is back
      const end = await waitUntil(session, () => endOf(session, marks, current) !== null, Math.min(PROBE_AFTER_MS, remaining()), options.signal);
      if (end === 'timeout' && session.alive) {
        probeFrom = session.ring.end;
        session.write(`${probe}\r`, options.by, options.now());
      }
    }
  }

  const end = await waitUntil(session, () => endOf(session, marks, current) !== null, remaining(), options.signal);
  const found = endOf(session, marks, current);
  const start = outputStart(session, marks, current);
  const result = (status: ShellRunResult['status'], exitCode: number | null, stop: number, hint?: string): ShellRunResult => {
    const from = start ?? stop;
    const to = Math.max(from, probeFrom !== null ? Math.min(stop, probeFrom) : stop);
    const read = session.readText(Math.max(from, to - options.maxBytes), to - Math.max(from, to - options.maxBytes));
    const text = current.mode === 'marks' && found ? withoutPromptSp(read.text) : read.text;
    // the guard is ASCII: the next read starts where the command's own output ended
    const next = read.next - (read.text.length - text.length);
    return {
      shellId: session.id,
      status,
      exitCode,
      output: input.format === 'raw' ? text : stripAnsi(text),
      cursor: encodeCursor('shell', session.id, [from]),
      nextCursor: encodeCursor('shell', session.id, [next]),
      omittedBytes: read.start - from,
      integration: current.mode,
      effectiveTimeoutMs: options.timeoutMs,
      ...(hint ? { hint } : {}),
    };
  };

  if (found) {
    current.done = true;
    if (current.mode === 'marks') {
      // the D mark and the next prompt come together; wait for it so the next command is typed at a prompt
      await waitUntil(session, () => marks.find('B', found.end) !== undefined, Math.min(options.promptWaitMs, 2_000), options.signal);
    }
    return result('finished', found.exitCode, found.start);
  }
  if (end === 'exited' || !session.alive) {
    current.done = true;
    return result('shellExited', session.exit?.exitCode ?? null, session.ring.end, `the shell itself ended (${session.exit?.signal ?? `exit code ${session.exit?.exitCode}`})`);
  }
  // no mark at all yet: the shell is still in its start-up files (a ~/.bashrc waiting on a lock, a slow plugin
  // manager); the command was typed and runs after them, so say where the time goes
  const hint = marks.last === undefined
    ? "the shell has not shown its first prompt yet: its start-up files (~/.bashrc, ~/.zshrc, …) are still running, and the command runs after them. Call shell_run with only shellId to keep waiting, or with interrupt: true to send C-c"
    : 'still running: call shell_run with only shellId to keep waiting, or with interrupt: true to send C-c';
  return result(end === 'cancelled' ? 'cancelled' : 'running', null, session.ring.end, hint);
}

/** Where the run's output starts: after its C mark (cmd prints none: after the echoed line). */
function outputStart(session: PtyShell, marks: ShellMarks, run: ActiveRun): number | null {
  const c = marks.find('C', run.from);
  if (c) return c.end;
  // no C mark: cmd prints none, nor does bash before 4.4 started with --norc (no PS0); then the output
  // starts after the echoed line, once the end is known. Any other sentinel line prints its own C first: a D
  // without it is the first prompt's (a line typed while the start-up files still ran), not this command's end
  // (after C-c the line may never have started: the status probe's D then ends it)
  const family = session.spec.integration?.family;
  if (run.mode === 'sentinel' && family !== 'cmd' && !run.interrupted) return null;
  if (family !== 'cmd' && !marks.find('D', run.from)) return null;
  const read = session.read(run.from, 64 * 1024);
  const newline = read.bytes.indexOf(0x0a);
  return newline < 0 ? null : read.start + newline + 1;
}

/** The run's D mark, once its output started. */
function endOf(session: PtyShell, marks: ShellMarks, run: ActiveRun): { start: number; end: number; exitCode: number | null } | null {
  const start = outputStart(session, marks, run);
  if (start === null) return null;
  return marks.find('D', start) ?? null;
}

/** Resolves when `ready()` holds (checked now and on every output), the shell exits, time runs out or the call is cancelled. */
function waitUntil(session: PtyShell, ready: () => boolean, ms: number, signal?: AbortSignal): Promise<WaitEnd> {
  if (ready()) return Promise.resolve('ready');
  if (!session.alive) return Promise.resolve('exited');
  if (signal?.aborted) return Promise.resolve('cancelled');
  return new Promise((resolve) => {
    const finish = (end: WaitEnd) => {
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      resolve(end);
    };
    const onAbort = () => finish('cancelled');
    const unsubscribe = session.onChange(() => {
      if (ready()) finish('ready');
      else if (!session.alive) finish('exited');
    });
    const timer = setTimeout(() => finish(ready() ? 'ready' : 'timeout'), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * zsh draws its PROMPT_SP guard (the end-of-line mark, `%` or `#` for root, in bold reverse, then spaces to the
 * edge and `\r \r`) before its precmd hooks run, so before the D mark: it is the shell's, not the command's.
 */
export function withoutPromptSp(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/(?:\x1b\[[0-9;]*m)*[%#]?(?:\x1b\[[0-9;]*m)* *\r \r$/, '');
}
