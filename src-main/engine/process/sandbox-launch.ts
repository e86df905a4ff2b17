import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../core/fs-safe';
import { PROC_TAG_ENV } from './process-table';
import type { Mount } from './sandbox-mounts';

/**
 * The clean launch of the sandbox program. It starts with a fixed environment (a PATH and the room's process
 * tag): nothing the agent chose reaches a process outside the sandbox, so `LD_PRELOAD`, `LD_LIBRARY_PATH`,
 * `GCONV_PATH`, `DYLD_*`, `MALLOC_*` and the like cannot run the agent's code in it before its walls exist.
 * The agent's own variables are set inside: bubblewrap clears its children's environment and sets each one
 * (`--clearenv`, `--setenv`), sandbox-exec's first program inside sources them. They travel in a file, not on
 * a command line (/proc/<pid>/cmdline is readable by every user; a run's token is among them): 0600 in a
 * folder of the runner's that the sandbox hides, opened by a tiny /bin/sh launcher (itself started with the
 * fixed environment) and removed before anything of the agent runs. The launcher execs the sandbox program,
 * so its pid is the one the room started, tagged like every process inside.
 */
export interface Launch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** The PATH the launcher and the sandbox program get. */
export const LAUNCH_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';

/** The fixed environment of the sandbox program: a PATH and the process tag, nothing the agent chose. */
export function launcherEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const tag = env[PROC_TAG_ENV];
  return { PATH: LAUNCH_PATH, ...(tag ? { [PROC_TAG_ENV]: tag } : {}) };
}

/** Opens the file of arguments on fd 3, removes it, and runs bubblewrap reading its options from fd 3. */
export const BWRAP_LAUNCHER = 'exec 3<"$1" || exit 126; /bin/rm -f -- "$1"; shift; exec "$0" --args 3 "$@"';

/** Sources the variables file (inside the sandbox), removes it, and runs the program with them. */
export const SANDBOX_EXEC_LAUNCHER = 'set -a; . "$0" || exit 126; set +a; /bin/rm -f -- "$0"; exec "$@"';

/** The agent's environment as bubblewrap options: its children's environment cleared, then each variable set. */
export function bwrapEnvArgs(env: NodeJS.ProcessEnv): string[] {
  const out = ['--clearenv'];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out.push('--setenv', name, value);
  return out;
}

/** What runs `file args` in bubblewrap with `options` (mounts, namespaces, environment) read from `argsFile`. */
export function bwrapLaunch(program: string, env: NodeJS.ProcessEnv, file: string, args: string[], argsFile: string): Launch {
  return { file: '/bin/sh', args: ['-c', BWRAP_LAUNCHER, program, argsFile, '--', file, ...args], env: launcherEnv(env) };
}

/** The content of bubblewrap's arguments file: NUL-separated. */
export function argsFileContent(options: string[]): string {
  for (const o of options) if (o.includes('\0')) throw new Error('a sandbox argument holds a NUL byte');
  return options.map((o) => `${o}\0`).join('');
}

const shellQuote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The variables file sandbox-exec's launcher sources: the launcher's own variables the agent did not set are
 * unset, then each of the agent's is assigned (a name the shell cannot assign is left out).
 */
export function envScript(env: NodeJS.ProcessEnv): string {
  const lines: string[] = [];
  for (const name of Object.keys(launcherEnv(env))) if (env[name] === undefined) lines.push(`unset ${name}`);
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && SHELL_NAME.test(name)) lines.push(`${name}=${shellQuote(value)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A sandbox-exec profile string literal. */
export function sbString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** What sandbox-exec's profile says: everything but writes allowed, writes where `mounts` say, `hidden` denied. */
export interface ProfileInput {
  mounts: Mount[];
  hiddenDirs: string[];
  hiddenFiles: string[];
  /** Readable although inside a hidden folder: the agent's own run folder. */
  readableDirs: string[];
  /** The variables file: read and removed by the launcher inside. */
  envFile: string;
}

/** A sandbox-exec profile (later rules win over earlier ones, as later mounts do in bubblewrap). */
export function sandboxExecProfile(p: ProfileInput): string {
  const rules = ['(version 1)', '(allow default)', '(deny file-write* (subpath "/"))', '(allow file-write* (subpath "/dev"))'];
  for (const m of p.mounts) rules.push(`(${m.mode === 'rw' ? 'allow' : 'deny'} file-write* (subpath ${sbString(m.path)}))`);
  const hidden = [...p.hiddenDirs.map((d) => `(subpath ${sbString(d)})`), ...p.hiddenFiles.map((f) => `(literal ${sbString(f)})`)];
  if (hidden.length > 0) rules.push(`(deny file-read* file-write* ${hidden.join(' ')})`);
  for (const d of p.readableDirs) rules.push(`(allow file-read* (subpath ${sbString(d)}))`);
  rules.push(`(allow file-read* file-write-unlink (literal ${sbString(p.envFile)}))`);
  return rules.join('');
}

/** What runs `file args` under sandbox-exec with `profile`, the agent's variables sourced inside from `envFile`. */
export function sandboxExecLaunch(program: string, profile: string, env: NodeJS.ProcessEnv, file: string, args: string[], envFile: string): Launch {
  return { file: program, args: ['-p', profile, '/bin/sh', '-c', SANDBOX_EXEC_LAUNCHER, envFile, file, ...args], env: launcherEnv(env) };
}

/** How long a launch file may wait for its launcher before it counts as left behind (a launch that failed). */
const LEFT_BEHIND_MS = 60_000;

/**
 * Writes one launch's file (0600, never through a link, never over an existing file) in `dir`, a private folder
 * the sandbox hides; files an earlier failed launch left behind are removed first.
 */
export function writeLaunchFile(dir: string, content: string, now = Date.now()): string {
  ensurePrivateDir(dir);
  for (const name of fs.readdirSync(dir)) {
    const old = path.join(dir, name);
    try {
      if (now - fs.lstatSync(old).mtimeMs > LEFT_BEHIND_MS) fs.rmSync(old, { force: true });
    } catch {
      // removed meanwhile
    }
  }
  const file = path.join(dir, `launch-${randomBytes(12).toString('hex')}`);
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  try {
    fs.writeSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
