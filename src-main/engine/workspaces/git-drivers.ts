import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The filter, merge and diff drivers a repository's config defines (`filter.<name>.clean`, `merge.<name>.driver`,
 * `diff.<name>.textconv`, …): programs git runs for the files whose attributes name them (`.gitattributes`, which
 * an agent commits on its branch, or `.git/info/attributes`). git 2.39 cannot be told to ignore attributes
 * (`--attr-source` came later), so the room reads the names (with `git config`, which runs nothing) and empties
 * each driver on the command line (driverOverrides).
 */
export interface Drivers {
  filter: Set<string>;
  merge: Set<string>;
  diff: Set<string>;
  /** `core.worktree` when it moves the working tree of the repository the room runs in away from it (movedTree). */
  movedTree: string | null;
  /** The files the answer came from, or were looked for (an include of a file that does not exist), by path; and whether worktree configuration is on (then every worktree's own config counts). */
  read: { files: Set<string>; worktreeConfig: boolean };
}

/** How deep conditional includes are followed, and how many files: a config with more is refused rather than half read. */
const MAX_ROUNDS = 8;
const MAX_FILES = 256;

/** What one git process answered (git.ts's GitOutput: that file runs this one's reads). */
interface GitOutput {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `git <args>` in `cwd` in the room's fixed environment, with `config` added on its command line. */
export type Runner = (cwd: string, args: readonly string[], config?: readonly [string, string][]) => Promise<GitOutput>;

interface Entry {
  scope: string | null;
  origin: string;
  key: string;
  value: string | null;
}

/** `git config --list [--show-scope] --show-origin -z`: [scope,] origin, then "key\nvalue" (or "key" alone), each ended by NUL. */
function parse(out: string, withScope: boolean): Entry[] {
  const fields = out.split('\0');
  const width = withScope ? 3 : 2;
  const entries: Entry[] = [];
  for (let i = 0; i + width - 1 < fields.length; i += width) {
    const pair = fields[i + width - 1] ?? '';
    const nl = pair.indexOf('\n');
    entries.push({ scope: withScope ? (fields[i] ?? '') : null, origin: fields[i + width - 2] ?? '', key: nl < 0 ? pair : pair.slice(0, nl), value: nl < 0 ? null : pair.slice(nl + 1) });
  }
  return entries;
}

/**
 * A config file's path from its origin ("file:<path>"), or null for another origin. git names the repository's
 * own config relative to the top of the working tree it found (".git/config", also when it ran in a subfolder),
 * so a relative path is looked for from `cwd` upwards, as git looked for it.
 */
function originFile(origin: string, cwd: string): string | null {
  if (!origin.startsWith('file:')) return null;
  const file = origin.slice('file:'.length);
  if (path.isAbsolute(file)) return file;
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, file))) return path.join(dir, file);
    if (path.dirname(dir) === dir) return path.resolve(cwd, file);
  }
}

/** Where an include's path points: `~/` is the home folder, a relative path is beside the file that includes it. */
function includeTarget(value: string, origin: string, cwd: string): string | null {
  const from = originFile(origin, cwd);
  if (!from) return null;
  if (value.startsWith('~/')) return path.join(os.homedir(), value.slice(2));
  return path.resolve(path.dirname(from), value);
}

/** Every linked worktree's own config file (`config.worktree`, read there when extensions.worktreeConfig is set). */
function worktreeConfigs(commonDir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(path.join(commonDir, 'worktrees'));
  } catch {
    return [];
  }
  return names.map((n) => path.join(commonDir, 'worktrees', n, 'config.worktree')).filter((f) => fs.existsSync(f));
}

/**
 * `core.worktree` of the repository's own config, when the room runs in that repository's folder and the value
 * names another folder: git would then check out, merge and write files there (an agent that sets it to the
 * person's home gets its branch's files written into it by the approval's merge), and `-c core.worktree` cannot
 * put it back (git reads it from the repository's file alone). Linked worktrees (the handoffs') do not follow it,
 * nor is a nested repository's own (under .git/modules) checked: the room runs in neither's repository folder.
 */
function movedTree(entries: Entry[], localFile: string | null, cwd: string): string | null {
  if (!localFile || path.basename(path.dirname(localFile)) !== '.git') return null;
  // the repository's config, or its main worktree's config.worktree beside it
  const own = (e: Entry) => (e.scope === 'local' || e.scope === 'worktree') && path.dirname(originFile(e.origin, cwd) ?? '') === path.dirname(localFile);
  const value = entries.filter((e) => e.key === 'core.worktree' && own(e)).pop()?.value ?? null;
  if (value === null) return null;
  const top = path.dirname(path.dirname(localFile));
  const rel = path.relative(top, path.resolve(cwd));
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null; // the room is not in this repository's folder
  return path.resolve(path.dirname(localFile), value) === top ? null : value;
}

/**
 * The drivers named in the config git would read in `cwd` (global and system config are isolated), and in the
 * config git may read in another folder of the same repository while it runs: every file a conditional include
 * names, whether or not its condition holds here (`includeIf.onbranch:` and `includeIf.gitdir:` hold differently
 * in the worktree `git worktree add` checks out), and every worktree's `config.worktree` (`git worktree remove`
 * runs `git status` in the worktree it removes). A failed read is answered as is, so that the caller does not run
 * its command unguarded.
 *
 * The names are read just before each command (or reused while nothing they came from changed: driver-cache.ts,
 * from `read`), so a driver added between the read and the command (a few milliseconds) is not emptied: that
 * window is closed where no agent can write the repository's config (the sandbox keeps `.git/config` read-only)
 * and no agent works on at that moment (completion ends its writing).
 */
export async function readDrivers(cwd: string, runGit: Runner): Promise<Drivers | GitOutput> {
  const drivers: Drivers = { filter: new Set(), merge: new Set(), diff: new Set(), movedTree: null, read: { files: new Set(), worktreeConfig: false } };
  const seen = new Set<string>();
  let pending: string[] = [];
  const take = (entries: Entry[]) => {
    for (const { origin, key, value } of entries) {
      const first = key.indexOf('.');
      const last = key.lastIndexOf('.');
      const section = key.slice(0, first);
      if (last > first && (section === 'filter' || section === 'merge' || section === 'diff')) drivers[section].add(key.slice(first + 1, last));
      const file = originFile(origin, cwd);
      if (file) drivers.read.files.add(file);
      if (key === 'extensions.worktreeconfig') drivers.read.worktreeConfig = true; // any value: counted as on
      // a plain include git followed itself (or found missing: a file made there later would be read)
      if (key === 'include.path' && value !== null) {
        const included = includeTarget(value, origin, cwd);
        if (included) drivers.read.files.add(included);
      }
      const target = section === 'includeif' && key.endsWith('.path') && value !== null ? includeTarget(value, origin, cwd) : null;
      if (target) drivers.read.files.add(target);
      if (target && !seen.has(target)) {
        seen.add(target);
        pending.push(target);
      }
    }
  };
  // git follows plain includes itself; conditional ones only where their condition holds, so their files are
  // read apart, all of one round in one git: given as plain includes on its command line (a missing file is none)
  const listed = await runGit(cwd, ['config', '--list', '--show-scope', '--show-origin', '-z']);
  if (listed.status !== 0) return listed;
  const entries = parse(listed.stdout, true);
  take(entries);
  const local = entries.find((e) => e.scope === 'local');
  const localFile = local ? originFile(local.origin, cwd) : null;
  for (const file of localFile ? worktreeConfigs(path.dirname(localFile)) : []) pending.push(file);
  drivers.movedTree = movedTree(entries, localFile, cwd);
  for (let round = 0; pending.length > 0; round++) {
    if (round >= MAX_ROUNDS || seen.size > MAX_FILES) return { status: 1, stdout: '', stderr: `error: the repository's config includes files more than ${MAX_ROUNDS} deep or more than ${MAX_FILES} of them; the room reads no more` };
    const files = pending;
    pending = [];
    const more = await runGit(cwd, ['config', '--list', '--show-origin', '-z'], files.map((f) => ['include.path', f] as [string, string]));
    if (more.status !== 0) return more;
    take(parse(more.stdout, false));
  }
  return drivers;
}

/**
 * What empties each driver, checked against git's source (convert.c, merge-ll.c, diff.c) and by trying it:
 * - filter: an empty clean, smudge or process command is no filter (apply_filter runs `cmd` only when `*cmd`),
 *   and `required=false` keeps "the filter failed" from stopping a checkout;
 * - merge: an empty driver is run as a program named "" and git stops with "failure to merge", so the driver
 *   becomes `exit 1`, which git gives to /bin/sh: a built-in that runs nothing, and the file is a conflict (the
 *   refusal names it);
 * - diff: an empty `command` or `textconv` would be run too and fail the diff ("external diff died"): the room's
 *   diffs pass `--no-ext-diff --no-textconv`, which skip both, so the empty value only matters for a diff that
 *   forgot them, and then it fails rather than running the driver.
 */
export function driverOverrides(drivers: Drivers): [string, string][] {
  const out: [string, string][] = [];
  for (const name of drivers.filter) out.push([`filter.${name}.clean`, ''], [`filter.${name}.smudge`, ''], [`filter.${name}.process`, ''], [`filter.${name}.required`, 'false']);
  for (const name of drivers.merge) out.push([`merge.${name}.driver`, 'exit 1']);
  for (const name of drivers.diff) out.push([`diff.${name}.command`, ''], [`diff.${name}.textconv`, '']);
  return out;
}
