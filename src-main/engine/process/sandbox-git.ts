import fs from 'node:fs';
import path from 'node:path';
import { GIT_READ_ONLY } from '../../common/sandbox-policy';

/**
 * What the sandbox makes writable and read-only for the git repository a writable working folder is in, found
 * by reading files (git itself is never run on a folder an agent writes). Writable: the worktree's own git
 * folder (its index, HEAD, logs) and the common folder's objects, refs and logs, so commits work; read-only:
 * what git reads as configuration or runs (config, config.worktree, hooks/, info/ of the common folder, of
 * the worktree's own and of submodules'), a linked worktree's `.git` file and its `gitdir`/`commondir`
 * pointers. Missing hooks/ and info/ are made (empty: what `git init` makes), so they cannot be planted; a
 * repository whose configuration cannot be protected (a symlink in its place) gets no writable git folder.
 */
export interface GitPlaces {
  writable: string[];
  readOnly: string[];
}

/** The `.git` folder or file of the repository `cwd` is in, with the folder holding it; null outside one. */
function findDotGit(cwd: string): { top: string; dotGit: string; isFile: boolean } | null {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    try {
      const st = fs.lstatSync(dotGit);
      if (st.isDirectory()) return { top: dir, dotGit, isFile: false };
      if (st.isFile()) return { top: dir, dotGit, isFile: true };
    } catch {
      // not here
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/** A pointer file's target (`gitdir: X`, or a bare path in `commondir`), resolved against `base`. */
export function readPointer(file: string, base: string, prefix: string): string | null {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    const target = prefix ? (text.startsWith(prefix) ? text.slice(prefix.length).trim() : null) : text;
    return target ? path.resolve(base, target) : null;
  } catch {
    return null;
  }
}

function isDir(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** A git folder's read-only places; null when one is a symlink or cannot be made (then it stays read-only). */
function protect(gitDir: string, names: readonly string[]): string[] | null {
  const out: string[] = [];
  let worktreeConfig = false;
  try {
    worktreeConfig = /worktreeconfig\s*=\s*true/i.test(fs.readFileSync(path.join(gitDir, 'config'), 'utf8'));
  } catch {
    // no config of its own (a linked worktree's folder)
  }
  for (const name of names) {
    const p = path.join(gitDir, name);
    let st: fs.Stats | null = null;
    try {
      st = fs.lstatSync(p);
    } catch {
      st = null;
    }
    if (st?.isSymbolicLink()) return null;
    if (!st) {
      try {
        if (name === 'hooks' || name === 'info') fs.mkdirSync(p, { mode: 0o755 });
        // read only when the repository turned worktree configuration on: then an empty one is made
        else if (name === 'config.worktree' && worktreeConfig) fs.writeFileSync(p, '', { flag: 'wx', mode: 0o644 });
        else if (name === 'config') return null;
        else continue;
      } catch {
        return null;
      }
    }
    out.push(p);
  }
  return out;
}

/** Submodules' git folders under `<common>/modules` (a few levels: nested submodules too). */
function submoduleGitDirs(common: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 4) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const sub = path.join(dir, e.name);
      if (fs.existsSync(path.join(sub, 'HEAD')) && fs.existsSync(path.join(sub, 'objects'))) {
        out.push(sub);
        walk(path.join(sub, 'modules'), depth + 1);
      } else walk(sub, depth + 1);
    }
  };
  walk(path.join(common, 'modules'), 0);
  return out;
}

/** The git places for a writable working folder `cwd`; null outside a repository. */
export function gitPlaces(cwd: string): GitPlaces | null {
  const found = findDotGit(cwd);
  if (!found) return null;
  const gitDir = found.isFile ? readPointer(found.dotGit, found.top, 'gitdir:') : found.dotGit;
  if (!gitDir || !isDir(gitDir)) return null;
  const common = readPointer(path.join(gitDir, 'commondir'), gitDir, '') ?? gitDir;
  if (!isDir(common)) return null;
  const readOnly = protect(common, GIT_READ_ONLY);
  if (!readOnly) return { writable: [], readOnly: [] };
  if (gitDir !== common) {
    // a linked worktree's own folder: git reads its config.worktree (its hooks come from the common folder)
    const own = protect(gitDir, ['config.worktree']);
    if (!own) return { writable: [], readOnly };
    readOnly.push(...own);
    for (const pointer of ['commondir', 'gitdir']) if (fs.existsSync(path.join(gitDir, pointer))) readOnly.push(path.join(gitDir, pointer));
  }
  if (found.isFile) readOnly.push(found.dotGit);
  for (const sub of submoduleGitDirs(common)) readOnly.push(...(protect(sub, GIT_READ_ONLY) ?? [sub]));
  const logs = path.join(common, 'logs');
  if (!fs.existsSync(logs)) {
    try {
      fs.mkdirSync(logs, { mode: 0o755 });
    } catch {
      // git makes it when it can
    }
  }
  const writable = [gitDir, ...['objects', 'refs', 'logs'].map((n) => path.join(common, n)).filter(isDir)];
  return { writable, readOnly };
}
