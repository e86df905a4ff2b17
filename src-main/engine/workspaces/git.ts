import { execFile } from 'node:child_process';
import { RoomError } from '../../common/errors';

/** What one git command printed and how it ended (a non-zero status is an answer too: `merge-tree` reports conflicts so). */
export interface GitOutput {
  status: number;
  stdout: string;
  stderr: string;
}

/** Output a git command may print before it is cut off: a diff of a large change is the most the room reads. */
const MAX_OUTPUT = 256 * 1024 * 1024;

/**
 * The room's git: the user's own `git` on the PATH, run directly (never through a shell, so paths with spaces
 * or quotes are arguments, not syntax), in the C locale (messages the room parses), with no terminal prompt
 * (a credential or editor prompt would hang the call) and no pager.
 */
export function git(cwd: string, args: readonly string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'core.quotePath=false', ...args],
      {
        cwd,
        encoding: 'utf8',
        maxBuffer: MAX_OUTPUT,
        timeout: options.timeoutMs ?? 60_000,
        env: { ...process.env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'true', GIT_OPTIONAL_LOCKS: '0', ...options.env },
      },
      (error, stdout, stderr) => {
        if (error && typeof (error as NodeJS.ErrnoException).code === 'string') {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') return reject(new RoomError('UNAVAILABLE', 'git is not installed on this machine (or not on the room process\'s PATH): install it to use workspaces'));
          if (code === 'ENOTDIR') return reject(new RoomError('INVALID_INPUT', `${cwd} is not a folder`));
          return reject(new RoomError('INTERNAL', `git ${args[0] ?? ''} could not run: ${error.message}`));
        }
        if (error && (error as { killed?: boolean }).killed) return reject(new RoomError('UNAVAILABLE', `git ${args[0] ?? ''} did not finish in time: try again, or look at the repository (a lock held by another git?)`));
        const status = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
        resolve({ status: Number.isFinite(status) ? status : 1, stdout, stderr });
      },
    );
  });
}

/** The first line git wrote to stderr, for a message a person can act on. */
export function gitProblem(out: GitOutput): string {
  const line = out.stderr.split('\n').map((l) => l.replace(/^(fatal|error): /, '').trim()).find((l) => l !== '');
  return line ?? `git exited with status ${out.status}`;
}

/** `git …` that must succeed: its stdout, or a RoomError of `code` naming what git said. */
export async function gitOk(cwd: string, args: readonly string[], code: 'INVALID_INPUT' | 'CONFLICT' | 'INTERNAL' = 'INTERNAL', what?: string): Promise<string> {
  const out = await git(cwd, args);
  if (out.status !== 0) throw new RoomError(code, `${what ?? `git ${args[0] ?? ''}`}: ${gitProblem(out)}`);
  return out.stdout;
}
