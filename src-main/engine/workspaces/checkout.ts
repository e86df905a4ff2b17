import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RoomError } from '../../common/errors';
import { git, gitOk, gitProblem } from './git';

/** A path the merge writes in the checkout, and whether the merged commit deletes it. */
export interface MergePath {
  path: string;
  deleted: boolean;
}

/** Names as they are: `*` or `:` in a file name is not a pattern (pathspecs the room passes are always literal). */
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

/** Every path that differs between `from` and `to` (no rename pairing: a rename is a deletion and an addition). */
export async function changedPaths(repo: string, from: string, to: string): Promise<MergePath[]> {
  const out = await gitOk(repo, ['diff', '--no-ext-diff', '--no-textconv', '--no-renames', '--name-status', '-z', from, to]);
  const fields = out.split('\0');
  const paths: MergePath[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) paths.push({ path: fields[i + 1] as string, deleted: (fields[i] ?? '').startsWith('D') });
  return paths;
}

/** The files in `index` (git ls-files), as a set. */
async function tracked(worktree: string): Promise<Set<string>> {
  return new Set((await gitOk(worktree, ['ls-files', '-z'])).split('\0').filter((p) => p !== ''));
}

const lstat = (file: string): fs.Stats | null => {
  try {
    return fs.lstatSync(file);
  } catch {
    return null;
  }
};

/**
 * What in the person's checkout a merge would overwrite: files that are there but not committed (untracked or
 * ignored: `git merge --ff-only` silently overwrites ignored ones, so the room looks itself), where the merge
 * adds a file or a folder; and the person's own uncommitted changes to files the merge changes.
 */
export async function inTheWay(worktree: string, paths: readonly MergePath[]): Promise<{ untracked: string[]; changed: string[] }> {
  const index = await tracked(worktree);
  const untracked = new Set<string>();
  for (const p of paths) {
    if (p.deleted) continue;
    const parts = p.path.split('/');
    for (let n = 1; n < parts.length; n++) {
      const dir = parts.slice(0, n).join('/');
      const s = lstat(path.join(worktree, dir));
      if (!s) break;
      if (!s.isDirectory() && !index.has(dir)) untracked.add(dir);
    }
    if (!index.has(p.path) && lstat(path.join(worktree, p.path))) untracked.add(p.path);
  }
  const status = (await gitOk(worktree, ['status', '--porcelain=v1', '-z', '--untracked-files=no', '--no-renames'])).split('\0');
  const mine = new Set(status.filter((e) => /^.. /.test(e)).map((e) => e.slice(3)));
  const changed = paths.filter((p) => mine.has(p.path)).map((p) => p.path);
  return { untracked: [...untracked], changed };
}

/** The first 20 names (and how many more), with "(ignored)" after those the checkout's ignore rules match. */
export async function nameFew(worktree: string, files: readonly string[]): Promise<string> {
  const few = files.slice(0, 20);
  // one name a line (-z only works with --stdin): a name with a line break is shown without the mark
  const out = await git(worktree, ['check-ignore', '--no-index', '--', ...few]);
  const ignored = new Set(out.stdout.split('\n').filter((p) => p !== ''));
  const names = few.map((f) => (ignored.has(f) ? `${f} (ignored)` : f)).join(', ');
  return files.length > few.length ? `${names} and ${files.length - few.length} more` : names;
}

/**
 * Makes `paths` of the checkout match `commit`, index and files, and nothing else: what the room wrote there
 * is put back (a rollback to the previous tip) or finished (the merged commit). A path `commit` lacks is
 * removed; one the index lacks too is a file the room wrote (before an intent is recorded, none of its paths
 * may hold an uncommitted file), so it is deleted, and folders it leaves empty go with it.
 */
export async function restorePaths(worktree: string, commit: string, paths: readonly string[], env: Record<string, string>): Promise<void> {
  if (paths.length === 0) return;
  const inCommit = new Set((await gitOk(worktree, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', commit])).split('\0').filter((p) => p !== ''));
  const index = await tracked(worktree);
  const known = paths.filter((p) => inCommit.has(p) || index.has(p));
  if (known.length > 0) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-paths-'));
    try {
      const list = path.join(dir, 'paths');
      fs.writeFileSync(list, `${known.join('\0')}\0`, { mode: 0o600 });
      const out = await git(worktree, ['checkout', '--no-overlay', '-q', '-f', commit, `--pathspec-from-file=${list}`, '--pathspec-file-nul'], { env: { ...env, ...LITERAL }, timeoutMs: 600_000 });
      if (out.status !== 0) throw new RoomError('CONFLICT', `putting ${known.length} file(s) of ${worktree} back to ${commit.slice(0, 7)} failed: ${gitProblem(out)}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const p of paths) {
    if (inCommit.has(p) || index.has(p)) continue;
    const file = path.join(worktree, p);
    const s = lstat(file);
    if (s && !s.isDirectory()) fs.rmSync(file, { force: true });
    for (let dir = path.dirname(file); dir.startsWith(worktree + path.sep); dir = path.dirname(dir)) {
      try {
        fs.rmdirSync(dir);
      } catch {
        break; // not empty (or not there): the folders above stay too
      }
    }
  }
}

/** A git lock file of the checkout (index.lock) or of a ref, when it exists and was made at or after `since`. */
export async function lockSince(worktree: string, gitPath: string, since: string): Promise<string | null> {
  const out = await git(worktree, ['rev-parse', '--git-path', gitPath]);
  if (out.status !== 0) return null;
  const file = path.resolve(worktree, out.stdout.trim());
  const s = lstat(file);
  return s && s.mtimeMs >= Date.parse(since) - 1000 ? file : null;
}
