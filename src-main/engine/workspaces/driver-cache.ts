import fs from 'node:fs';
import path from 'node:path';
import { readDrivers, type Drivers, type Runner } from './git-drivers';
import { readPointer } from '../process/sandbox-git';

/**
 * The drivers a repository's config names (git-drivers.ts), read again only when what the last read came from
 * changed: a task's start, a completion's capture and a review each run several git commands in one repository,
 * and each read is a git process of its own. Nothing is trusted for being cached: an answer is reused only
 * while every input of it is as it was when it was read — each config file it read, each include it looked for
 * (made later, it would be read), the `.git` entry that says which repository the folder is in and the pointers
 * to its git folders, and, with worktree configuration on, every worktree's folder (a `config.worktree` made in
 * one) — each compared by identity, size and change time (ctime: no process of the user's can set it back, as
 * `touch` sets mtime). A read whose inputs changed within the last RACY_MS (file times tick coarsely: a second
 * change in the same tick would look like none) is not kept, as git treats a "racily clean" index entry.
 *
 * Two more ways to one git process less, neither trusting more than the kept read does:
 * - a linked worktree (a handoff's) reads its repository's config and nothing else, and its repository's read
 *   covers every file any of its worktrees reads (git-drivers.ts: every conditional include whatever its
 *   condition, every worktree's `config.worktree`): so while that read is kept and all its inputs stand as they
 *   were, it is the worktree's answer too (a capture, in a worktree made a moment ago, asks no read of its own);
 * - commands asked for together in one folder (a capture's status, diff and log) share one read begun for them:
 *   each still starts only after that read ended, as if it had run it itself.
 */

/** How recent a change to an input keeps a read from being reused. */
const RACY_MS = 2_000;
/** Folders whose reads are kept (the oldest one goes first). */
const MAX_ENTRIES = 64;

interface Kept {
  drivers: Drivers;
  /** Each input, how it is compared, and its stamp when read (null: it did not exist). */
  inputs: { place: string; kind: Kind; stamp: string | null }[];
}

const kept = new Map<string, Kept>();

/** How an input is compared: a file by identity, size and times; a folder by identity, or by identity and the names in it. */
type Kind = 'file' | 'folder' | 'names';

/** An input's stamp (null: it does not exist), and when a file last changed (ms; 0 for a folder). */
function stampOf(place: string, kind: Kind): { stamp: string; changedAt: number } | null {
  try {
    const s = fs.statSync(place, { bigint: true });
    if (kind === 'file' || !s.isDirectory()) return { stamp: `${s.dev}:${s.ino}:${s.mode}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, changedAt: Number(s.ctimeNs / 1_000_000n) };
    const names = kind === 'names' ? `:${fs.readdirSync(place).sort().join('/')}` : '';
    return { stamp: `${s.dev}:${s.ino}${names}`, changedAt: 0 };
  } catch {
    return null;
  }
}

/**
 * What says which config git reads in `cwd`: its `.git` (a folder, or a file naming the worktree's git folder),
 * the `commondir` pointer in the git folder, the common folder's `config` (made later, it would be read), and
 * with worktree configuration on every worktree's `config.worktree` and the list of worktrees. Null (no reuse)
 * when `cwd` has no `.git` of its own (git would look for one above it) or it is a link.
 */
function gitPlaces(cwd: string, worktreeConfig: boolean): [string, Kind][] | null {
  const dotGit = path.join(cwd, '.git');
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dotGit);
  } catch {
    return null;
  }
  if (!st.isDirectory() && !st.isFile()) return null;
  const out: [string, Kind][] = [[dotGit, st.isFile() ? 'file' : 'folder']];
  const gitDir = st.isFile() ? readPointer(dotGit, cwd, 'gitdir:') : dotGit;
  if (!gitDir) return null;
  out.push([gitDir, 'folder'], [path.join(gitDir, 'commondir'), 'file']);
  const common = readPointer(path.join(gitDir, 'commondir'), gitDir, '') ?? gitDir;
  out.push([common, 'folder'], [path.join(common, 'config'), 'file']);
  if (worktreeConfig) {
    const worktrees = path.join(common, 'worktrees');
    out.push([path.join(gitDir, 'config.worktree'), 'file'], [path.join(common, 'config.worktree'), 'file'], [worktrees, 'names']);
    try {
      for (const name of fs.readdirSync(worktrees)) out.push([path.join(worktrees, name, 'config.worktree'), 'file']);
    } catch {
      // no linked worktrees
    }
  }
  return out;
}

/** Stamps of `places`; null when a file among them changed after `settledBy` (it may change again unseen). */
function stampsOf(places: Iterable<[string, Kind]>, settledBy = Infinity): Map<string, string | null> | null {
  const stamps = new Map<string, string | null>();
  for (const [place, kind] of places) {
    const s = stampOf(place, kind);
    if (s && s.changedAt > settledBy) return null;
    stamps.set(place, s?.stamp ?? null);
  }
  return stamps;
}

/** Whether every input of a kept read is as it was when it was read. */
const standing = (known: Kept): boolean => known.inputs.every((i) => (stampOf(i.place, i.kind)?.stamp ?? null) === i.stamp);

/**
 * The kept read of the repository whose linked worktree `key` is, while it stands: `key/.git` is a file naming
 * `<repo>/.git/worktrees/<name>`, whose `commondir` names `<repo>/.git` (read now, each time: what git will
 * follow); null otherwise (the folder's own read is made).
 */
function repositoryRead(key: string): Drivers | null {
  const dotGit = path.join(key, '.git');
  try {
    if (!fs.lstatSync(dotGit).isFile()) return null;
  } catch {
    return null;
  }
  const gitDir = readPointer(dotGit, key, 'gitdir:');
  const common = gitDir ? readPointer(path.join(gitDir, 'commondir'), gitDir, '') : null;
  if (!gitDir || !common || path.basename(common) !== '.git' || path.dirname(gitDir) !== path.join(common, 'worktrees')) return null;
  const known = kept.get(path.dirname(common));
  return known && standing(known) ? known.drivers : null;
}

/** Reads begun and not yet ended, by folder (commands asked for together share one). */
const reading = new Map<string, Promise<Awaited<ReturnType<typeof readDrivers>>>>();

/** readDrivers(cwd), or the last answer for `cwd` (or for the repository of which it is a linked worktree) while nothing it came from changed. */
export async function driversOf(cwd: string, runGit: Runner): Promise<Awaited<ReturnType<typeof readDrivers>>> {
  const key = path.resolve(cwd);
  const known = kept.get(key);
  if (known && standing(known)) return known.drivers;
  const ofRepository = repositoryRead(key);
  if (ofRepository) return ofRepository;
  const begun = reading.get(key);
  if (begun) return begun;
  const read = readAndKeep(key, cwd, runGit).finally(() => reading.delete(key));
  reading.set(key, read);
  return read;
}

/** One read of `cwd`'s drivers, kept when it may be reused (see above). */
async function readAndKeep(key: string, cwd: string, runGit: Runner): Promise<Awaited<ReturnType<typeof readDrivers>>> {
  kept.delete(key);
  // a file that changed less than RACY_MS before the read began (or during it) is not relied on
  const settledBy = Date.now() - RACY_MS;
  const places = gitPlaces(key, true);
  const before = places ? stampsOf(places) : null;
  const drivers = await readDrivers(cwd, runGit);
  if ('status' in drivers || drivers.movedTree !== null || !before) return drivers;
  const inputs = new Map<string, Kind>(gitPlaces(key, drivers.read.worktreeConfig) ?? []);
  for (const file of drivers.read.files) inputs.set(file, 'file');
  const after = inputs.size > 0 ? stampsOf(inputs, settledBy) : null;
  // kept when every input has settled and the git places are as they were when the read began
  if (!after || !after.has(path.join(key, '.git')) || [...after].some(([place, stamp]) => before.has(place) && before.get(place) !== stamp)) return drivers;
  if (kept.size >= MAX_ENTRIES) kept.delete(kept.keys().next().value as string);
  kept.set(key, { drivers, inputs: [...inputs].map(([place, kind]) => ({ place, kind, stamp: after.get(place) ?? null })) });
  return drivers;
}
