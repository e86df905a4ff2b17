import { spawn } from 'node:child_process';
import path from 'node:path';
import type { EvidenceFile, MergePreview, WorkspaceView } from '../../common/handoff-dto';
import { commentLines, previewLines, wholePreview } from '../../common/merge-preview-text';
import { stringFlag, UsageError, type ParsedArgs } from '../args';
import { print, type CeCommand } from '../command';
import { callAsOperator, readAs } from '../room-client';
import { visible } from '../visible-text';

/**
 * Reviewing from the terminal: a handoff's workspace in `ce handoff ID` (branch, base, worktree, the commit the
 * evidence holds, files with their counts, the runs that tested it), the patch itself in `ce diff ID`, and a
 * handoff the person hands to an agent (`ce handoff create`).
 */

const short = (sha: string) => sha.slice(0, 12);

/** The workspace's lines for `ce handoff ID` (the files are read with handoff_evidence by the caller). */
export function workspaceLines(id: string, w: WorkspaceView, files: EvidenceFile[], preview: MergePreview | null = null): string[] {
  const lines = [
    `workspace:   ${w.state}${w.note ? ` (${w.note})` : ''}`,
    `branch:      ${w.branch}   base: ${w.base}${w.baseBranch === null ? ' (not a branch: approve without merge)' : ''} at ${short(w.baseCommit)}`,
    `repository:  ${w.repo}`,
  ];
  if (w.host) lines.push(`host:        ${w.host} (its clone ${w.hostRepo ?? ''}; the work is fetched here for review)`);
  if (w.path) lines.push(`worktree:    ${w.path}${w.host ? ` (on ${w.host})` : ''}`);
  if (w.continues) lines.push(`continues:   ${w.continues.handoffId}${w.continues.reason ? ` (rejected: ${w.continues.reason})` : ''}`);
  for (const c of commentLines(w.continues?.comments ?? [])) lines.push(`  comment    ${c}`);
  const e = w.evidence;
  if (e) {
    lines.push(`reviewed:    commit ${short(e.head)} (captured ${e.capturedAt}): ${e.files} file${e.files === 1 ? '' : 's'}, +${e.additions} −${e.deletions}, ${e.commitCount} commit${e.commitCount === 1 ? '' : 's'}`);
    for (const c of e.commits) lines.push(`  ${short(c.sha)} ${c.subject} (${c.author})`);
    for (const f of files) {
      const counts = f.binary ? 'binary' : `+${f.additions ?? 0} −${f.deletions ?? 0}`;
      lines.push(`  ${f.status.padEnd(9)} ${counts.padEnd(12)} ${f.oldPath ? `${f.oldPath} → ` : ''}${f.path}${f.cut ? ' (patch cut)' : ''}`);
    }
    if (files.length < e.files) lines.push(`  … ${e.files - files.length} more: ce diff ${id} --stat`);
    if (e.uncommittedCount > 0) lines.push(`uncommitted: ${e.uncommittedCount} file${e.uncommittedCount === 1 ? '' : 's'} left uncommitted (not in the diff, never merged): ${e.uncommitted.map((u) => u.path).slice(0, 5).join(', ')}${e.uncommittedCount > 5 ? ', …' : ''}`);
    if (e.runs.length === 0) lines.push('tested:      no graph run in the workspace');
    for (const r of e.runs) {
      lines.push(`tested:      ${r.graphId}${r.name ? ` (${r.name})` : ''} ${r.state}${r.failed.length > 0 ? `: failed ${r.failed.map((s) => `${s.stageId} ${s.log}`).join(', ')}` : ''}`);
    }
  }
  if (preview) {
    const [merge = '', ...rest] = previewLines(preview);
    lines.push(`now:         ${merge} (checked against ${preview.into ?? 'the base'} at ${short(preview.baseTip)})`);
    for (const l of rest) lines.push(`             ${l}`);
  }
  if (w.merge) lines.push(`merged:      into ${w.merge.into} at ${short(w.merge.commit)} (${w.merge.fastForward ? 'fast-forward' : 'merge commit'}) by ${w.merge.by}, ${w.merge.at}`);
  return lines;
}

/** What merging the handoff's work would do now (handoff_preview), or null when it has no live worktree or the preview failed. */
export async function mergePreview(room: string | undefined, handoffId: string): Promise<MergePreview | null> {
  try {
    return wholePreview((await readAs(room, 'handoff_preview', { handoffId })).preview);
  } catch {
    return null; // a preview is a help to the review, never a reason the review cannot be shown
  }
}

/** Every file of a handoff's evidence, page after page (`patches`: with their patch text). */
export async function evidenceFiles(room: string | undefined, handoffId: string, patches: boolean): Promise<EvidenceFile[]> {
  const files: EvidenceFile[] = [];
  let cursor: string | null = null;
  do {
    const page: { files: EvidenceFile[]; nextCursor: string | null } = await readAs(room, 'handoff_evidence', { handoffId, patches, limit: 200, ...(cursor ? { cursor } : {}) });
    files.push(...page.files);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return files;
}

/** A patch coloured as git colours one (for a terminal): headers bold, hunks cyan, lines red and green. */
function coloured(patch: string): string {
  return patch
    .split('\n')
    .map((line) => {
      if (/^(diff |index |--- |\+\+\+ |new file|deleted file|similarity|rename |old mode|new mode)/.test(line)) return `\x1b[1m${line}\x1b[0m`;
      if (line.startsWith('@@')) return `\x1b[36m${line}\x1b[0m`;
      if (line.startsWith('+')) return `\x1b[32m${line}\x1b[0m`;
      if (line.startsWith('-')) return `\x1b[31m${line}\x1b[0m`;
      return line;
    })
    .join('\n');
}

/** Text through the person's pager ($PAGER, else less -R) when stdout is a terminal; printed as it is otherwise. */
function page(text: string): Promise<void> {
  if (!process.stdout.isTTY) {
    process.stdout.write(text);
    return Promise.resolve();
  }
  const pager = process.env.PAGER?.trim() || 'less -R';
  return new Promise((resolve) => {
    const child = spawn(pager, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: { ...process.env, LESS: process.env.LESS ?? 'FRX' } });
    child.on('error', () => {
      process.stdout.write(text);
      resolve();
    });
    child.on('close', () => resolve());
    child.stdin.on('error', () => undefined); // the person quit the pager before the end
    child.stdin.end(text);
  });
}

function createHandoff(args: ParsedArgs, room: string | undefined): Promise<number> {
  const summary = stringFlag(args, 'summary');
  if (!summary) throw new UsageError('ce handoff create: say what the work is with --summary TEXT');
  if (args.positional.length > 2) throw new UsageError(`unexpected argument ${JSON.stringify(args.positional[2])}`);
  const repo = stringFlag(args, 'repo');
  const base = stringFlag(args, 'base');
  if (base !== undefined && repo === undefined) throw new UsageError('ce handoff create: --base needs --repo (the repository the base is in)');
  const host = stringFlag(args, 'host');
  const hostRepo = stringFlag(args, 'host-repo');
  if ((host !== undefined || hostRepo !== undefined) && (host === undefined || hostRepo === undefined || repo === undefined)) {
    throw new UsageError('ce handoff create: a worktree on a host takes --repo DIR (here), --host ALIAS and --host-repo PATH (its clone there) together');
  }
  const onHost = host !== undefined ? { host, hostRepo } : {};
  const to = stringFlag(args, 'to');
  const constraints = stringFlag(args, 'constraints');
  const input = {
    summary,
    ...(to ? { to } : {}),
    ...(constraints ? { constraints } : {}),
    // a relative folder is the person's: resolved against where they ran ce, never the room's folder
    ...(repo !== undefined ? { workspace: { repo: path.resolve(repo), ...(base !== undefined ? { base } : {}), ...onHost } } : {}),
  };
  return callAsOperator(room, 'handoff_create', input).then((out) => {
    const w = out.handoff.workspace;
    print(args, out, () =>
      [
        `created ${out.handoff.id} for ${out.handoff.to ?? 'anyone who can accept it'}: ${summary}`,
        ...(w ? [`its worktree is made${w.host ? ` on ${w.host} (in ${w.hostRepo ?? ''})` : ''} on branch ${w.branch} from ${w.base} (${short(w.baseCommit)}) when it is accepted`] : []),
      ].join('\n'),
    );
    return 0;
  });
}

export const REVIEW_COMMANDS: CeCommand[] = [
  {
    name: 'diff',
    synopsis: ['ce diff ID [--stat]'],
    summary: "a handoff's change as it was reviewed: the patch of each file captured at completion (coloured, through your pager on a terminal)",
    options: { stat: { type: 'boolean', help: 'the files with their counts, no patch' } },
    details: ['The patch is the one captured when the work was completed: the commit "ce handoff ID" names under reviewed, which is what approving merges.'],
    examples: ['ce diff h_0123', 'ce diff h_0123 --stat', 'ce diff h_0123 --json > change.json'],
    async run(args, room) {
      const [, id, ...extra] = args.positional;
      if (!id) throw new UsageError('ce diff ID: the id is missing');
      if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
      const stat = args.flags.stat === true;
      const { handoff } = await readAs(room, 'handoff_get', { handoffId: id });
      const w = handoff.workspace;
      if (!w) throw new UsageError(`handoff ${id} has no workspace (it was created without a repository): there is no diff to show`);
      if (!w.evidence) throw new UsageError(`handoff ${id}'s work is not completed yet (its workspace is ${w.state}): the change is captured at completion`);
      const files = await evidenceFiles(room, id, !stat);
      if (args.flags.json) {
        print(args, { evidence: w.evidence, files }, () => '');
        return 0;
      }
      const head = `handoff ${id}: ${w.branch} at ${short(w.evidence.head)} against ${w.base} (${short(w.baseCommit)}), ${files.length} file${files.length === 1 ? '' : 's'}, +${w.evidence.additions} −${w.evidence.deletions}\n`;
      if (stat) {
        print(args, null, () => [head.trimEnd(), ...files.map((f) => `  ${f.status.padEnd(9)} ${(f.binary ? 'binary' : `+${f.additions ?? 0} −${f.deletions ?? 0}`).padEnd(12)} ${f.path}`)].join('\n'));
        return 0;
      }
      const body = files
        .map((f) => (f.patch === null ? `${f.binary ? 'binary file' : 'patch not kept (over the cap)'}: ${f.path}\n` : `${f.patch}${f.cut ? '\n… (patch cut: over the per-file or total cap)\n' : ''}`))
        .join('');
      // agent-written text: control characters made visible before colour is added
      const text = visible(head + body);
      await page(process.stdout.isTTY ? coloured(text) : text);
      return 0;
    },
  },
];

/** `ce handoff create …`, reached through the `handoff` command (its second word). */
export const createHandoffCommand = createHandoff;
