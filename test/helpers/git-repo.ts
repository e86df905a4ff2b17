import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Who the tests' commits are by (set in the environment, so no git config of the machine is needed). */
export const GIT_IDENTITY = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com' };

/** Real git in `cwd`; its stdout, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_IDENTITY } }).trim();
}

/**
 * Real git without blocking: for a long git call in a test whose room runs in the same process (a blocked event
 * loop lets the room's keep-alive timer close a socket just as the client reuses it).
 */
export function gitAsync(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_IDENTITY }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
  });
}

/** A repository at `dir` with one commit on main holding `files` (path → text); its identity set in its config. */
export function makeRepo(dir: string, files: Record<string, string>): string {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', GIT_IDENTITY.GIT_AUTHOR_NAME);
  git(dir, 'config', 'user.email', GIT_IDENTITY.GIT_AUTHOR_EMAIL);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}
