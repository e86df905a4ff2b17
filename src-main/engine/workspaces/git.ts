import { execFile } from 'node:child_process';
import { launchRoomProcess } from '../process/launcher';
import fs from 'node:fs';
import path from 'node:path';
import { RoomError } from '../../common/errors';
import { driverOverrides } from './git-drivers';
import { driversOf } from './driver-cache';

/** What one git command printed and how it ended (a non-zero status is an answer too: `merge-tree` reports conflicts so). */
export interface GitOutput {
  status: number;
  stdout: string;
  stderr: string;
}

/** Output a git command may print before it is cut off: a diff of a large change is the most the room reads. */
const MAX_OUTPUT = 256 * 1024 * 1024;

/** A file that is always empty (git for Windows reads "/dev/null" as NUL too): no config, no attributes, no hooks under it. */
const NOWHERE = '/dev/null';

/**
 * Config the room sets on every git it runs, whatever the repository's own config says. Given as
 * GIT_CONFIG_COUNT/KEY/VALUE (the command line's scope: it wins over every file, and git passes it on to the git
 * processes it starts itself, `worktree add`'s checkout and `merge`'s maintenance among them). Each line turns
 * off a way the commands the room runs (worktree add, status, diff, log, rev-list, merge-tree, commit-tree,
 * merge --ff-only, update-ref, worktree remove, branch -D) could start a program named in config an agent can
 * write (the repository's `.git/config`, a file it includes, a worktree's `config.worktree`):
 * - hooks (post-checkout and reference-transaction at worktree add, post-index-change, post-merge and
 *   pre-auto-gc at merge, …): `core.hooksPath` points where no hook can be;
 * - `core.fsmonitor` (a hook program run by every command that reads the index: status at completion);
 * - `core.attributesFile` (a file of `filter=`/`diff=`/`merge=` attributes; the repository's own attribute files
 *   cannot be turned off in git 2.39, so the drivers they name are, see git-drivers.ts);
 * - `diff.external` (an empty program fails the diff rather than running anything; the room's diffs pass
 *   `--no-ext-diff --no-textconv` too), and submodules: `diff.submodule=short` (`=diff` runs `git diff` inside
 *   a nested repository, with that repository's own config and its external diff), `diff.ignoreSubmodules=dirty`
 *   (`git status` runs `git status` inside each nested repository at a gitlink, with its own filters; `dirty`
 *   keeps the gitlink's own changes in sight, `all` would hide them from the diff a person reviews),
 *   `submodule.recurse`, `status.submoduleSummary`;
 * - signatures: `log.showSignature` (`git log` runs `gpg.program` to check a signed commit: the capture's log),
 *   `merge.verifySignatures` (the same at merge), `commit.gpgSign` (commit-tree would sign with
 *   `gpg.program`), `tag.gpgSign`, and the signing programs themselves emptied;
 * - `merge.default` (a driver for every file with no `merge` attribute) set back to git's own text merge;
 * - `gc.auto=0`, `maintenance.auto=false`: `merge` starts `git maintenance run --auto`, whose tasks can fetch
 *   (running a remote's `uploadpack` program) and whose gc runs the pre-auto-gc hook;
 * - programs of the network and of a terminal, not reached by these commands but closed all the same:
 *   `credential.helper` (an empty value clears the list), `core.sshCommand`, `core.askPass`, `core.pager`,
 *   `core.editor` (":" is git's own "no editor");
 * - `core.useReplaceRefs=false`: a `refs/replace/` entry would show the room (its diff, its merge) other
 *   objects than the commits really hold.
 * Not covered, because these commands never reach them: aliases (built-in commands cannot be aliased),
 * `remote.*.uploadpack`/`receivepack` and `url.*` (no fetch or push), `difftool`/`mergetool`, `sequence.editor`,
 * `interactive.diffFilter`, `trailer.*.command`, `core.alternateRefsCommand`. `trace2.*` targets are read only
 * from the system and global config, which are isolated.
 */
const FIXED_CONFIG: readonly (readonly [string, string])[] = [
  ['core.quotePath', 'false'],
  ['core.hooksPath', NOWHERE],
  ['core.fsmonitor', 'false'],
  ['core.attributesFile', NOWHERE],
  ['core.useReplaceRefs', 'false'],
  ['core.sshCommand', ''],
  ['core.askPass', ''],
  ['core.pager', 'cat'],
  ['core.editor', ':'],
  ['credential.helper', ''],
  ['diff.external', ''],
  ['diff.submodule', 'short'],
  ['diff.ignoreSubmodules', 'dirty'],
  ['submodule.recurse', 'false'],
  ['status.submoduleSummary', 'false'],
  ['log.showSignature', 'false'],
  ['merge.verifySignatures', 'false'],
  ['merge.default', 'text'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['gpg.program', ''],
  ['gpg.openpgp.program', ''],
  ['gpg.x509.program', ''],
  ['gpg.ssh.program', ''],
  ['gpg.ssh.defaultKeyCommand', ''],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
];

/** The variables a process needs on Windows to start at all (none of them is read by git as config or a program to run). */
const WINDOWS_VARS = ['SystemRoot', 'windir', 'PATHEXT', 'TEMP', 'TMP', 'USERPROFILE', 'HOMEDRIVE', 'HOMEPATH'];

/** The PATH the room's git gets: the person's, without relative entries (an empty entry or "." is the current folder, the agent's worktree). */
function safePath(): string {
  const entries = (process.env.PATH ?? '').split(path.delimiter).filter((p) => p !== '' && path.isAbsolute(p));
  return entries.length > 0 ? entries.join(path.delimiter) : '/usr/bin:/bin';
}

/**
 * The git the room runs: found on the PATH once, the first time, and run by its full path from then on, so that a
 * `git` an agent drops later into a folder on the PATH (or into its worktree, for a relative entry) is never the
 * one run. Which folders on the PATH an agent can write at all is the sandbox's to bound.
 */
let binary: string | undefined;

function gitBinary(): string {
  if (binary) return binary;
  const names = process.platform === 'win32' ? ['git.exe'] : ['git'];
  for (const dir of safePath().split(path.delimiter)) {
    for (const name of names) {
      try {
        const file = path.join(dir, name);
        fs.accessSync(file, fs.constants.X_OK);
        if (fs.statSync(file).isFile()) return (binary = file);
      } catch {
        // not here
      }
    }
  }
  return 'git'; // not found: execFile answers ENOENT, which says git is not installed
}

/**
 * The environment of every git the room runs: fixed, never the room process's own (no GIT_* variable of the
 * person's shell, no LD_* or DYLD_* loader variable, no locale but C). The global and system config are not read
 * (GIT_CONFIG_GLOBAL is an empty file, GIT_CONFIG_NOSYSTEM), nor system attributes; `personConfig` reads them
 * (for `git config` reading the person's name, e-mail and data settings: it runs nothing). HOME stays, for `~`
 * in the repository's config paths.
 */
function gitEnv(config: readonly (readonly [string, string])[], options: { personConfig?: boolean; env?: Record<string, string> }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: safePath(),
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    GIT_EDITOR: ':',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_ATTR_NOSYSTEM: '1',
  };
  if (process.env.HOME) env.HOME = process.env.HOME;
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  if (process.platform === 'win32') for (const name of WINDOWS_VARS) if (process.env[name]) env[name] = process.env[name];
  if (options.personConfig) {
    if (process.env.XDG_CONFIG_HOME) env.XDG_CONFIG_HOME = process.env.XDG_CONFIG_HOME;
  } else {
    env.GIT_CONFIG_GLOBAL = NOWHERE;
    env.GIT_CONFIG_NOSYSTEM = '1';
  }
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return { ...env, ...options.env };
}

/**
 * What the room's git keeps of the person's global and system config: settings that are data, never a program,
 * and that the person's checkout and the review should follow: line endings (core.autocrlf, core.eol,
 * core.safecrlf), their global ignore file (core.excludesFile), and the folders they trust though another user
 * owns them (safe.directory: git reads it only from those files and the command line; without it such a
 * repository is refused). Read once, when the room first runs git: a change to them is seen after a restart.
 */
const KEPT = '^(core\\.(autocrlf|eol|safecrlf|excludesfile)|safe\\.directory)$';
let kept: Promise<[string, string][]> | undefined;

function personSettings(): Promise<[string, string][]> {
  kept ??= (async () => {
    const found: [string, string][] = [];
    for (const scope of ['--system', '--global']) {
      const out = await run(path.parse(process.cwd()).root, ['config', scope, '-z', '--get-regexp', KEPT], gitEnv([], { personConfig: true }), 10_000).catch(() => null);
      for (const entry of out?.status === 0 ? out.stdout.split('\0') : []) {
        const nl = entry.indexOf('\n');
        if (entry !== '') found.push(nl < 0 ? [entry, 'true'] : [entry.slice(0, nl), entry.slice(nl + 1)]);
      }
    }
    return found;
  })();
  return kept;
}

/** One git process, as given: the user's own `git` on the (absolute) PATH, never through a shell. */
function run(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    const launch = launchRoomProcess(gitBinary(), args, env);
    execFile(launch.file, launch.args, { cwd, encoding: 'utf8', maxBuffer: MAX_OUTPUT, timeout: timeoutMs, env: launch.env }, (error, stdout, stderr) => {
      if (error && typeof (error as NodeJS.ErrnoException).code === 'string') {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && !fs.existsSync(cwd)) return reject(new RoomError('INVALID_INPUT', `the folder ${cwd} does not exist (any more)`));
        if (code === 'ENOENT') return reject(new RoomError('UNAVAILABLE', 'git is not installed on this machine (or not on the room process\'s PATH): install it to use workspaces'));
        if (code === 'ENOTDIR') return reject(new RoomError('INVALID_INPUT', `${cwd} is not a folder`));
        return reject(new RoomError('INTERNAL', `git ${args[0] ?? ''} could not run: ${error.message}`));
      }
      if (error && (error as { killed?: boolean }).killed) return reject(new RoomError('UNAVAILABLE', `git ${args[0] ?? ''} did not finish in time: try again, or look at the repository (a lock held by another git?)`));
      const status = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
      resolve({ status: Number.isFinite(status) ? status : 1, stdout, stderr });
    });
  });
}

/**
 * The room's git: the user's own `git`, run directly (never through a shell, so paths with spaces or quotes are
 * arguments, not syntax), in the C locale (messages the room parses), with no terminal prompt, no pager and no
 * editor, in the fixed environment above, with the person's own data settings (personSettings), and with nothing
 * it could run turned on: FIXED_CONFIG, and every filter, merge and diff driver the repository's config names
 * (read just before, see git-drivers.ts; or the last read's answer while none of its inputs changed, see
 * driver-cache.ts) emptied. If that read fails, its answer is the answer: the command does not run unguarded.
 * A repository whose config moves its working tree elsewhere (core.worktree) is refused.
 */
export async function git(cwd: string, args: readonly string[], options: { timeoutMs?: number; env?: Record<string, string>; personConfig?: boolean } = {}): Promise<GitOutput> {
  if ([cwd, ...args].some((a) => a.includes('\0'))) throw new RoomError('INVALID_INPUT', `a path or name given to git ${args[0] ?? ''} holds a NUL character: give it without one`);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const fixed = [...(await personSettings()), ...FIXED_CONFIG];
  const drivers = await driversOf(cwd, (dir, list, more = []) => run(dir, list, gitEnv([...fixed, ...more], {}), timeoutMs));
  if ('status' in drivers) return drivers;
  if (drivers.movedTree !== null) {
    throw new RoomError('CONFLICT', `the repository in ${cwd} has its working tree moved by its config (core.worktree = ${JSON.stringify(drivers.movedTree)}): the room does not run git there. If you did not set it, remove it: git config --unset core.worktree`);
  }
  return run(cwd, args, gitEnv([...fixed, ...driverOverrides(drivers)], options), timeoutMs);
}

/** The commands `gitRead` runs: they read refs and objects, never a file's content through a driver. */
const READS = new Set(['rev-parse', 'symbolic-ref', 'show-ref', 'rev-list', 'merge-base']);

/**
 * A read of refs and commits (`rev-parse`, `symbolic-ref`, `show-ref`, `rev-list`, `merge-base`) in the room's
 * fixed environment (FIXED_CONFIG: no hooks, no fsmonitor, no pager), without git()'s read of the repository's
 * drivers first: these commands run no filter, diff or merge driver (they never convert, diff or merge a file's
 * content), so that read would change nothing but their time (one git process more before each: a task's start
 * asks several such questions). Not for `--show-toplevel` where a moved working tree (core.worktree) must be
 * refused: git() refuses it, this does not look.
 */
export async function gitRead(cwd: string, args: readonly string[]): Promise<GitOutput> {
  if (!READS.has(args[0] ?? '')) throw new RoomError('INTERNAL', `git ${args[0] ?? ''} is not a read of refs: run it with git()`);
  if ([cwd, ...args].some((a) => a.includes('\0'))) throw new RoomError('INVALID_INPUT', `a path or name given to git ${args[0] ?? ''} holds a NUL character: give it without one`);
  return run(cwd, args, gitEnv([...(await personSettings()), ...FIXED_CONFIG], {}), 60_000);
}

/**
 * The first line git wrote to stderr, for a message a person can act on. A line that ends with a colon is git
 * naming what it is about on the lines after it ("Your local changes to the following files would be
 * overwritten by checkout:" then one file a line): those names come with it, in full (the first 20).
 */
export function gitProblem(out: GitOutput): string {
  const lines = out.stderr.split('\n').map((l) => l.replace(/^(fatal|error): /, '').trim());
  const at = lines.findIndex((l) => l !== '');
  const line = lines[at];
  if (line === undefined) return `git exited with status ${out.status}`;
  if (!line.endsWith(':')) return line;
  const names: string[] = [];
  for (const next of lines.slice(at + 1)) {
    if (next === '' || /^(Please|Aborting|hint:)/.test(next)) break;
    names.push(next);
  }
  if (names.length === 0) return line;
  const few = names.slice(0, 20).join(', ');
  return `${line} ${few}${names.length > 20 ? ` and ${names.length - 20} more` : ''}`;
}

/** `git …` that must succeed: its stdout, or a RoomError of `code` naming what git said. */
export async function gitOk(cwd: string, args: readonly string[], code: 'INVALID_INPUT' | 'CONFLICT' | 'INTERNAL' = 'INTERNAL', what?: string): Promise<string> {
  const out = await git(cwd, args);
  if (out.status !== 0) throw new RoomError(code, `${what ?? `git ${args[0] ?? ''}`}: ${gitProblem(out)}`);
  return out.stdout;
}

/**
 * The name and e-mail for a commit the room makes in `repo` (a merge commit), as GIT_AUTHOR_* and
 * GIT_COMMITTER_*: the person's own, from the repository's config or else their global or system config (read
 * with `git config`, which runs nothing; every other git the room runs reads no global config), else the room's.
 */
export async function identity(repo: string): Promise<Record<string, string>> {
  const out = await git(repo, ['config', '-z', '--get-regexp', '^user\\.(name|email)$'], { personConfig: true });
  const found: Record<string, string> = {};
  for (const entry of out.status === 0 ? out.stdout.split('\0') : []) {
    const nl = entry.indexOf('\n');
    if (nl > 0) found[entry.slice(0, nl)] = entry.slice(nl + 1); // the last one wins, as in git: the repository's
  }
  const name = found['user.name']?.trim() || 'Commonroom';
  const email = found['user.email']?.trim() || 'commonroom@localhost';
  return { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
}
