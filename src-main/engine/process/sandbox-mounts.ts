import fs from 'node:fs';
import path from 'node:path';

/**
 * The write policy of one launch as an ordered list of mounts over a read-only file system: each `rw` makes a
 * folder or file writable, each `ro` makes one inside a writable folder read-only again. Ordered from the
 * shallowest path to the deepest (the more specific place wins, as later bind mounts do in bubblewrap and
 * later rules do in a sandbox-exec profile); at one path read-only wins.
 *
 * A read-only place that is missing (a `.zshrc` the person does not have) or a symlink cannot be covered by a
 * bind mount: the folder holding it is then not made writable as a whole but entry by entry (its existing
 * entries writable, the folder itself not, so nothing new can be created in it). Temp folders are never split
 * that way: tools need to create files at their top. sandbox-exec denies a missing path as it is.
 */
export interface Mount {
  mode: 'rw' | 'ro';
  path: string;
}

export interface WritePolicy {
  /** Writable whatever they hold (temp folders). */
  temp: string[];
  /** Writable, but read-only places inside them stay so (the working folder, caches, client state, the git folders). */
  writable: string[];
  /** Read-only even inside a writable place: start-up files, git configuration and hooks, the runner's data folder. */
  readOnly: string[];
  /** Folders nothing inside which is ever made writable (the runner's data folder but its worktrees, hidden folders). */
  never: (p: string) => boolean;
  /** The sandbox can deny a path that does not exist (sandbox-exec); bubblewrap cannot. */
  denyMissing: boolean;
}

/** `p` with symlinks resolved as far as it exists (the rest appended), as mounts and profiles see it. */
export function realPath(p: string): string {
  const abs = path.resolve(p);
  try {
    return fs.realpathSync.native(abs);
  } catch {
    const parent = path.dirname(abs);
    return parent === abs ? abs : path.join(realPath(parent), path.basename(abs));
  }
}

/** `p` is `dir` or inside it. */
export function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/** The most entries a folder is made writable one by one (see addWritable). */
const MAX_SPLIT_ENTRIES = 1000;

const depth = (p: string) => p.split(path.sep).filter(Boolean).length;

interface Protected {
  path: string;
  /** Cannot be covered by a mount (missing, or a symlink whose own place is `path`). */
  uncoverable: boolean;
}

function protectedOf(p: string): Protected {
  let link = false;
  let exists = false;
  try {
    link = fs.lstatSync(p).isSymbolicLink();
    exists = true;
  } catch {
    exists = false;
  }
  // a symlink's own place is protected (not its target, which the agent could point it away from)
  if (link) return { path: path.join(realPath(path.dirname(p)), path.basename(p)), uncoverable: true };
  return { path: realPath(p), uncoverable: !exists };
}

/** The mounts that carry `policy` out, in the order they are applied. */
export function writeMounts(policy: WritePolicy): Mount[] {
  const mounts: Mount[] = [];
  const protectedPlaces = policy.readOnly.map(protectedOf);
  const usable = (p: string) => p !== path.sep && fs.existsSync(p) && !policy.never(p);

  const addWritable = (place: string, split: boolean) => {
    if (protectedPlaces.some((r) => r.path === place)) return;
    const blocking = protectedPlaces.filter((r) => r.uncoverable && within(r.path, place));
    if (!split || policy.denyMissing || blocking.length === 0) {
      mounts.push({ mode: 'rw', path: place });
      return;
    }
    // its existing entries, one by one; the folder itself (where the missing ones would be made) stays read-only
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(place, { withFileTypes: true });
    } catch {
      return;
    }
    // bubblewrap takes at most 9000 arguments: a folder too big to bind entry by entry stays read-only
    if (entries.length > MAX_SPLIT_ENTRIES) return;
    for (const e of entries) {
      const child = path.join(place, e.name);
      if (e.isSymbolicLink() || blocking.some((r) => r.path === child)) continue;
      if (blocking.some((r) => within(r.path, child))) {
        if (e.isDirectory()) addWritable(child, true);
        continue;
      }
      if (!policy.never(child)) mounts.push({ mode: 'rw', path: child });
    }
  };

  const seen = new Set<string>();
  for (const [places, split] of [
    [policy.temp, false],
    [policy.writable, true],
  ] as const) {
    for (const raw of places) {
      const place = realPath(raw);
      if (seen.has(place) || !usable(place)) continue;
      seen.add(place);
      addWritable(place, split);
    }
  }
  for (const r of protectedPlaces) {
    if (r.uncoverable && !policy.denyMissing) continue;
    if (mounts.some((m) => m.mode === 'rw' && within(r.path, m.path))) mounts.push({ mode: 'ro', path: r.path });
  }
  // shallow first; at one path, read-only after (and instead of) writable
  const byPath = new Map<string, Mount>();
  for (const m of mounts) if (byPath.get(m.path)?.mode !== 'ro') byPath.set(m.path, m);
  return [...byPath.values()].sort((a, b) => depth(a.path) - depth(b.path) || (a.mode === b.mode ? 0 : a.mode === 'rw' ? -1 : 1));
}
