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
}

/** Conditional includes followed, at most: a config that includes more is refused rather than half read. */
const MAX_INCLUDES = 32;

/** What one git process answered (git.ts's GitOutput: that file runs this one's reads). */
interface GitOutput {
  status: number;
  stdout: string;
  stderr: string;
}

type Runner = (cwd: string, args: readonly string[]) => Promise<GitOutput>;

/** `git config --list --show-origin -z`: origin, then "key\nvalue" (or "key" alone), each ended by NUL. */
function parse(out: string): { origin: string; key: string; value: string | null }[] {
  const fields = out.split('\0');
  const entries: { origin: string; key: string; value: string | null }[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i] ?? '';
    const pair = fields[i + 1] ?? '';
    const nl = pair.indexOf('\n');
    entries.push({ origin, key: nl < 0 ? pair : pair.slice(0, nl), value: nl < 0 ? null : pair.slice(nl + 1) });
  }
  return entries;
}

/** Where an include's path points: `~/` is the home folder, a relative path is beside the file that includes it. */
function includeTarget(value: string, origin: string, cwd: string): string | null {
  if (!origin.startsWith('file:')) return null;
  if (value.startsWith('~/')) return path.join(os.homedir(), value.slice(2));
  const from = path.resolve(cwd, origin.slice('file:'.length));
  return path.resolve(path.dirname(from), value);
}

/**
 * The drivers named in the config git would read in `cwd` (global and system config are isolated), and in every
 * file a conditional include names, whether or not its condition holds here: `includeIf.onbranch:` and
 * `includeIf.gitdir:` hold differently in the worktree `git worktree add` checks out than where the room reads.
 * A failed read is answered as is, so that the caller does not run its command unguarded.
 */
export async function readDrivers(cwd: string, runGit: Runner): Promise<Drivers | GitOutput> {
  const drivers: Drivers = { filter: new Set(), merge: new Set(), diff: new Set() };
  const listed = await runGit(cwd, ['config', '--list', '--show-origin', '-z']);
  if (listed.status !== 0) return listed;
  const pending: string[] = [];
  const seen = new Set<string>();
  const take = (out: string, plainIncludes: boolean) => {
    for (const { origin, key, value } of parse(out)) {
      const first = key.indexOf('.');
      const last = key.lastIndexOf('.');
      const section = key.slice(0, first);
      if (last > first && (section === 'filter' || section === 'merge' || section === 'diff')) drivers[section].add(key.slice(first + 1, last));
      const include = (section === 'includeif' && key.endsWith('.path')) || (plainIncludes && key === 'include.path');
      const target = include && value !== null ? includeTarget(value, origin, cwd) : null;
      if (target && !seen.has(target)) {
        seen.add(target);
        pending.push(target);
      }
    }
  };
  // git follows plain includes itself in this read; conditional ones only where their condition holds
  take(listed.stdout, false);
  for (let read = 0; pending.length > 0; read++) {
    if (read >= MAX_INCLUDES) return { status: 1, stdout: '', stderr: `error: the repository's config includes more than ${MAX_INCLUDES} files conditionally; the room reads no more` };
    // each included file on its own, its includes of both kinds queued here; a file that is not there is no config
    const one = await runGit(cwd, ['config', '--file', pending.shift() as string, '--list', '--show-origin', '-z', '--no-includes']);
    if (one.status === 0) take(one.stdout, true);
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
