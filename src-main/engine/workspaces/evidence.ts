import type { EvidenceCommit, EvidenceFile } from '../../common/handoff-dto';
import { gitOk } from './git';

/** How much of the change the room keeps as text: per file, and over all files (counts are always whole). */
export interface PatchCaps {
  perFileBytes: number;
  totalBytes: number;
}

export const PATCH_CAPS: PatchCaps = { perFileBytes: 128 * 1024, totalBytes: 8 * 1024 * 1024 };
const MAX_COMMITS = 100;
const MAX_UNCOMMITTED = 200;

export interface CapturedChange {
  head: string;
  commits: EvidenceCommit[];
  commitCount: number;
  files: EvidenceFile[];
  uncommitted: { path: string; status: string }[];
  uncommittedCount: number;
}

const STATUS: Record<string, EvidenceFile['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'type-changed' };

/** `git diff --name-status -z`: status letter (with a score for renames and copies), then one or two paths. */
function parseNameStatus(out: string): { status: EvidenceFile['status']; path: string; oldPath: string | null }[] {
  const fields = out.split('\0');
  const files: { status: EvidenceFile['status']; path: string; oldPath: string | null }[] = [];
  for (let i = 0; i < fields.length; ) {
    const code = fields[i++] ?? '';
    if (code === '') continue;
    const letter = code[0] ?? 'M';
    if (letter === 'R' || letter === 'C') {
      const oldPath = fields[i++] ?? '';
      files.push({ status: STATUS[letter] ?? 'modified', oldPath, path: fields[i++] ?? '' });
    } else {
      files.push({ status: STATUS[letter] ?? 'modified', oldPath: null, path: fields[i++] ?? '' });
    }
  }
  return files;
}

/** `git diff --numstat -z`: additions and deletions per file in the same order ("-" for a binary file). */
function parseNumstat(out: string): { additions: number | null; deletions: number | null }[] {
  const fields = out.split('\0');
  const counts: { additions: number | null; deletions: number | null }[] = [];
  for (let i = 0; i < fields.length; ) {
    const head = fields[i++] ?? '';
    if (head === '') continue;
    const [a, d, p] = head.split('\t');
    // a rename or copy: the path is empty here and the two paths follow as fields of their own
    if (p === '') i += 2;
    counts.push({ additions: a === '-' ? null : Number(a), deletions: d === '-' ? null : Number(d) });
  }
  return counts;
}

/** The patch text of each file, in diff order: the output split at each "diff --git" header. */
function splitPatches(out: string): string[] {
  const parts: string[] = [];
  let start = out.indexOf('diff --git ');
  while (start >= 0) {
    const next = out.indexOf('\ndiff --git ', start + 1);
    parts.push(next < 0 ? out.slice(start) : out.slice(start, next + 1));
    start = next < 0 ? -1 : next + 1;
  }
  return parts;
}

/** At most `max` bytes of `text`, cut at a line end. */
function cutAtLine(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  const head = bytes.subarray(0, max).toString('utf8');
  const nl = head.lastIndexOf('\n');
  return nl > 0 ? head.slice(0, nl + 1) : head;
}

/**
 * The change on a worktree's branch since `baseCommit`, from git itself: its commits, each file's status and
 * counts and its patch (capped: per file and in total; what was cut is marked), and what is in the worktree
 * but not committed (listed, never part of the diff).
 */
export async function captureChange(worktree: string, baseCommit: string, caps: PatchCaps = PATCH_CAPS): Promise<CapturedChange> {
  const head = (await gitOk(worktree, ['rev-parse', 'HEAD'])).trim();
  const range = `${baseCommit}..${head}`;
  const commitCount = Number((await gitOk(worktree, ['rev-list', '--count', range])).trim());
  const log = await gitOk(worktree, ['log', `--max-count=${MAX_COMMITS}`, '--format=%H%x1f%an%x1f%aI%x1f%s%x1e', range]);
  const commits = log
    .split('\x1e')
    .map((r) => r.trim())
    .filter((r) => r !== '')
    .map((r) => {
      const [sha = '', author = '', at = '', subject = ''] = r.split('\x1f');
      return { sha, author, at, subject };
    });
  const diffArgs = ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', baseCommit, head];
  const names = parseNameStatus(await gitOk(worktree, [...diffArgs.slice(0, 5), '--name-status', '-z', ...diffArgs.slice(5)]));
  const counts = parseNumstat(await gitOk(worktree, [...diffArgs.slice(0, 5), '--numstat', '-z', ...diffArgs.slice(5)]));
  const patches = splitPatches(await gitOk(worktree, diffArgs));
  let budget = caps.totalBytes;
  const files: EvidenceFile[] = names.map((n, i) => {
    const c = counts[i] ?? { additions: null, deletions: null };
    const binary = c.additions === null;
    const whole = binary ? null : (patches[i] ?? null);
    let patch: string | null = null;
    let cut = false;
    if (whole !== null) {
      const size = Buffer.byteLength(whole);
      const allowed = Math.min(caps.perFileBytes, Math.max(0, budget));
      if (allowed <= 0) cut = true;
      else {
        patch = size <= allowed ? whole : cutAtLine(whole, allowed);
        cut = size > allowed;
        budget -= Buffer.byteLength(patch);
      }
    }
    return { path: n.path, oldPath: n.oldPath, status: n.status, additions: c.additions, deletions: c.deletions, binary, patch, cut };
  });
  const status = await gitOk(worktree, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  const fields = status.split('\0');
  const uncommitted: { path: string; status: string }[] = [];
  let uncommittedCount = 0;
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i] ?? '';
    if (!/^.. /.test(entry)) continue;
    const code = entry.slice(0, 2);
    if (code[0] === 'R' || code[0] === 'C') i++; // the original path follows
    uncommittedCount++;
    if (uncommitted.length < MAX_UNCOMMITTED) uncommitted.push({ path: entry.slice(3), status: code === '??' ? 'untracked' : code.trim() });
  }
  return { head, commits, commitCount, files, uncommitted, uncommittedCount };
}
