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

/** One file of `git diff --raw -z`: its status letter and its path (and the old path of a rename or copy). */
interface RawEntry {
  status: EvidenceFile['status'];
  path: string;
  oldPath: string | null;
}

/**
 * `git diff --raw -z -p`: the raw records (":modes shas STATUS\0path\0", two paths for a rename or copy), an
 * empty field, then the patch text of the same files in the same order.
 */
function parseRawAndPatch(out: string): { entries: RawEntry[]; patchText: string } {
  const entries: RawEntry[] = [];
  let at = 0;
  const field = () => {
    const end = out.indexOf('\0', at);
    const value = end < 0 ? out.slice(at) : out.slice(at, end);
    at = end < 0 ? out.length : end + 1;
    return value;
  };
  while (at < out.length && out[at] === ':') {
    const letter = field().split(' ').pop()?.[0] ?? 'M';
    const first = field();
    if (letter === 'R' || letter === 'C') entries.push({ status: STATUS[letter] ?? 'modified', oldPath: first, path: field() });
    else entries.push({ status: STATUS[letter] ?? 'modified', oldPath: null, path: first });
  }
  if (out[at] === '\0') at++;
  return { entries, patchText: out.slice(at) };
}

/** Lines a file's patch adds and removes (null for a binary file), counted from its hunks. */
function countLines(patch: string | undefined): { additions: number | null; deletions: number | null } {
  if (patch === undefined) return { additions: 0, deletions: 0 };
  const hunks = patch.indexOf('\n@@');
  if (hunks < 0) return /\nBinary files |\nGIT binary patch/.test(patch) ? { additions: null, deletions: null } : { additions: 0, deletions: 0 };
  let additions = 0;
  let deletions = 0;
  for (const line of patch.slice(hunks + 1).split('\n')) {
    if (line.startsWith('+')) additions++;
    else if (line.startsWith('-')) deletions++;
  }
  return { additions, deletions };
}

/** `git status --porcelain=v2 --branch -z`: the commit checked out, and the files not committed. */
function parseStatus(out: string): { head: string | null; files: { path: string; status: string }[] } {
  const fields = out.split('\0');
  let head: string | null = null;
  const files: { path: string; status: string }[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] ?? '';
    if (f.startsWith('# branch.oid ')) head = f.slice('# branch.oid '.length);
    else if (f.startsWith('? ')) files.push({ path: f.slice(2), status: 'untracked' });
    else if (/^[12u] /.test(f)) {
      const parts = f.split(' ');
      const skip = f[0] === '1' ? 8 : f[0] === '2' ? 9 : 10;
      files.push({ path: parts.slice(skip).join(' '), status: (parts[1] ?? '').replaceAll('.', '') });
      if (f[0] === '2') i++; // the original path of a rename follows
    }
  }
  return { head, files };
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
  // three git processes side by side (each costs ~10 ms to start here; one after another, seven of them took
  // four times as long as git diff alone): the diff (raw records and patches in one), the log, the status (which
  // commit is checked out, what is not committed). The diff, the longest, is started first: a start blocks this
  // thread until the child runs (1.5-2.5 ms each from a process of the room's size), so the last one starts
  // late. The status's commit pins the range; if a commit landed while they ran (the log's newest is another),
  // the diff and log are read again at that commit. Each says itself what git.ts also sets: no external diff,
  // textconv, signature check or look inside a nested repository.
  const read = (to: string) =>
    Promise.all([
      gitOk(worktree, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--submodule=short', '-M', '--raw', '-z', '-p', baseCommit, to]),
      gitOk(worktree, ['log', '--no-show-signature', `--max-count=${MAX_COMMITS + 1}`, '--format=%H%x1f%an%x1f%aI%x1f%s%x1e', `${baseCommit}..${to}`]),
    ]);
  const [[first, firstLog], statusText] = await Promise.all([read('HEAD'), gitOk(worktree, ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--ignore-submodules=dirty'])]);
  const status = parseStatus(statusText);
  const head = status.head ?? (await gitOk(worktree, ['rev-parse', 'HEAD'])).trim();
  let diffText = first;
  let commits = commitsOf(firstLog);
  if ((commits[0]?.sha ?? baseCommit) !== head) {
    const [again, againLog] = await read(head);
    diffText = again;
    commits = commitsOf(againLog);
  }
  const commitCount = commits.length > MAX_COMMITS ? Number((await gitOk(worktree, ['rev-list', '--count', `${baseCommit}..${head}`])).trim()) : commits.length;
  commits = commits.slice(0, MAX_COMMITS);
  const files = filesOfDiff(diffText, caps);
  const uncommitted = status.files.slice(0, MAX_UNCOMMITTED);
  const uncommittedCount = status.files.length;
  return { head, commits, commitCount, files, uncommitted, uncommittedCount };
}

/** The commits of a `git log --format=%H%x1f%an%x1f%aI%x1f%s%x1e` read. */
function commitsOf(log: string): { sha: string; author: string; at: string; subject: string }[] {
  return log
    .split('\x1e')
    .map((r) => r.trim())
    .filter((r) => r !== '')
    .map((r) => {
      const [sha = '', author = '', at = '', subject = ''] = r.split('\x1f');
      return { sha, author, at, subject };
    });
}

/** The files a worktree holds that are not committed (a host's node reads them there: the fetch cannot bring them). */
export async function uncommittedIn(worktree: string): Promise<{ path: string; status: string }[]> {
  const out = await gitOk(worktree, ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--ignore-submodules=dirty']);
  return parseStatus(out).files;
}

/**
 * The change of a commit fetched into `repo` (a host's work: refs/commonroom/fetched/…) since `baseCommit`, as
 * captureChange reads a worktree's: its commits, files and patches (capped), with the worktree's uncommitted
 * files as its host's node listed them.
 */
export async function captureCommits(repo: string, baseCommit: string, head: string, uncommittedFiles: readonly { path: string; status: string }[], caps: PatchCaps = PATCH_CAPS): Promise<CapturedChange> {
  const [diffText, log] = await Promise.all([
    gitOk(repo, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--submodule=short', '-M', '--raw', '-z', '-p', baseCommit, head]),
    gitOk(repo, ['log', '--no-show-signature', `--max-count=${MAX_COMMITS + 1}`, '--format=%H%x1f%an%x1f%aI%x1f%s%x1e', `${baseCommit}..${head}`]),
  ]);
  let commits = commitsOf(log);
  const commitCount = commits.length > MAX_COMMITS ? Number((await gitOk(repo, ['rev-list', '--count', `${baseCommit}..${head}`])).trim()) : commits.length;
  commits = commits.slice(0, MAX_COMMITS);
  return { head, commits, commitCount, files: filesOfDiff(diffText, caps), uncommitted: uncommittedFiles.slice(0, MAX_UNCOMMITTED), uncommittedCount: uncommittedFiles.length };
}

/** The files of `git diff --raw -z -p` output, each with its counts and its patch (capped per file and in total). */
function filesOfDiff(diffText: string, caps: PatchCaps): EvidenceFile[] {
  const { entries, patchText } = parseRawAndPatch(diffText);
  const patches = splitPatches(patchText);
  let budget = caps.totalBytes;
  return entries.map((n, i) => {
    const c = countLines(patches[i]);
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
}

/**
 * The change between two commits of a repository (by id: what was reviewed last time and what is to be reviewed
 * now), file by file, capped as a capture is. The room's git: no external diff or textconv.
 */
export async function diffBetween(repo: string, from: string, to: string, caps: PatchCaps = PATCH_CAPS): Promise<EvidenceFile[]> {
  return filesOfDiff(await gitOk(repo, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--submodule=short', '-M', '--raw', '-z', '-p', from, to]), caps);
}
