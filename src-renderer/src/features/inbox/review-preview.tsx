import { useEffect, useState } from 'react';
import type { HandoffView, MergePreview } from '../../../../src-main/common/handoff-dto';
import { checkWords, mergeWords, overlapWords, wholePreview } from '../../../../src-main/common/merge-preview-text';
import { useRoom } from '../../room-context';

/**
 * How often an open review asks again whether the work still merges. The room answers from what it already
 * worked out while no ref moved (one `git for-each-ref`), so asking is cheap; a timer rather than a watcher on
 * the repository's files, because refs live in loose files, packed-refs and other worktrees alike, and a base
 * moved by hand (a pull, a commit in the person's checkout) says nothing to the room.
 */
const RECHECK_MS = 10_000;

/** The merge preview of a waiting handoff with a workspace: asked on opening, on every change, and every RECHECK_MS. */
export function useMergePreview(h: HandoffView): MergePreview | null {
  const { client } = useRoom();
  const [preview, setPreview] = useState<MergePreview | null>(null);
  const live = h.workspace?.state === 'ready' && (h.status === 'accepted' || h.status === 'result_ready');
  useEffect(() => {
    if (!live) return setPreview(null);
    let on = true;
    const ask = () =>
      client.call('handoff_preview', { handoffId: h.id }).then(
        (r) => on && setPreview(wholePreview(r.preview)),
        () => undefined, // a preview helps the review; a failed one leaves the last answer (or none)
      );
    void ask();
    const timer = setInterval(() => void ask(), RECHECK_MS);
    return () => {
      on = false;
      clearInterval(timer);
    };
  }, [client, h.id, h.updatedAt, live]);
  return preview;
}

/** The preview beside the decision: the merge in words, the checks, and each neighbour touching the same lines. */
export function PreviewSummary(props: { preview: MergePreview; compact?: boolean }): React.JSX.Element {
  const p = props.preview;
  const mergeTone = p.merge === 'conflicts' ? 'bad' : p.merge === 'nothing' || p.merge === 'no-branch' ? 'muted' : 'good';
  const checkTone = p.checks.state === 'passed' ? 'good' : p.checks.state === 'failed' ? 'bad' : 'warn';
  const overlaps = overlapWords(p);
  return (
    <div className={`merge-preview${props.compact ? ' compact' : ''}`} data-testid="merge-preview" aria-live="polite">
      <span className={`preview-chip tone-${mergeTone}`} data-testid="preview-merge" title={`checked against ${p.into ?? 'the base'} at ${p.baseTip.slice(0, 12)}, ${new Date(p.checkedAt).toLocaleTimeString()}`}>
        {mergeWords(p)}
      </span>
      <span className={`preview-chip tone-${checkTone}`} data-testid="preview-checks">
        {checkWords(p)}
      </span>
      {overlaps.map((o, i) => (
        <span key={p.overlaps[i]?.handoffId ?? i} className="preview-chip tone-warn" data-testid="preview-overlap">
          {o}
        </span>
      ))}
    </div>
  );
}
