import type { LineComment, MergePreview } from './handoff-dto';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The preview's merge in words: "main moved 3 commits since; merges cleanly", "conflicts in a.ts, b.ts". */
export function mergeWords(p: MergePreview): string {
  const into = p.into ?? 'the base';
  const moved = p.behind > 0 ? `${into} moved ${plural(p.behind, 'commit')} since` : `${into} has not moved`;
  switch (p.merge) {
    case 'conflicts':
      return `${moved}; conflicts in ${p.conflicts.slice(0, 10).join(', ')}${p.conflicts.length > 10 ? `, and ${p.conflicts.length - 10} more` : ''}`;
    case 'clean':
      return `${moved}; merges cleanly`;
    case 'fast-forward':
      return `${moved}; merges as a fast-forward`;
    case 'nothing':
      return `${into} already has this work: nothing to merge`;
    default:
      return 'the base is not a branch: nothing merges (approve only)';
  }
}

/** The tested-by runs in words. */
export function checkWords(p: MergePreview): string {
  if (p.checks.state === 'missing') return 'no checks ran in the workspace (tasks_run with its handoffId)';
  if (p.checks.state === 'failed') return `checks failed: ${p.checks.failed.join('; ')}`;
  return 'checks passed';
}

/** Each neighbour that touches the same lines, and which merges first ("merge hf_12 first"). */
export function overlapWords(p: MergePreview): string[] {
  return p.overlaps.map(
    (o) => `touches the same lines as ${o.handoffId} (“${o.summary.slice(0, 60)}”, ${o.status.replace('_', ' ')}) in ${o.files.slice(0, 5).join(', ')}: ${o.mergeFirst === 'that' ? `merge ${o.handoffId} first` : `merge this first, then ${o.handoffId}`}`,
  );
}

/** Whether approving and merging should not be the first thing offered: a conflict, or checks failed or missing. */
export function holdsBack(p: MergePreview | null): boolean {
  return p !== null && (p.merge === 'conflicts' || p.checks.state !== 'passed');
}

/** A rejection's reason that sends conflicting work back with the conflict listed. */
export function conflictReason(p: MergePreview): string {
  return `Merging into ${p.into ?? 'the base'} conflicts in ${p.conflicts.slice(0, 20).join(', ')}${p.conflicts.length > 20 ? ', …' : ''} (${p.into ?? 'the base'} moved ${plural(p.behind, 'commit')} since you started). Merge ${p.into ?? 'the base'} into your branch, resolve them, commit, and complete again.`;
}

/** The preview as lines of text (ce handoff, an MCP answer). */
export function previewLines(p: MergePreview): string[] {
  return [mergeWords(p), checkWords(p), ...overlapWords(p)];
}

/** Line comments as text lines: "src/a.ts:12 text". */
export function commentLines(comments: readonly LineComment[]): string[] {
  return comments.map((c) => `${c.path}:${c.line}${c.side === 'old' ? ' (old side)' : ''}: ${c.text}`);
}

/** A preview as a door answered it, its empty lists put back (compact answers leave them out). */
export function wholePreview(raw: Partial<MergePreview> | null | undefined): MergePreview | null {
  if (!raw) return null;
  return { ...(raw as MergePreview), conflicts: raw.conflicts ?? [], overlaps: raw.overlaps ?? [], checks: { state: raw.checks?.state ?? 'missing', failed: raw.checks?.failed ?? [] } };
}
