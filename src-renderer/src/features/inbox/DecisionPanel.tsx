import { forwardRef, useImperativeHandle, useRef, useState } from 'react';
import type { LineComment, MergePreview } from '../../../../src-main/common/handoff-dto';
import { conflictReason, holdsBack } from '../../../../src-main/common/merge-preview-text';
import { PreviewSummary } from './review-preview';

export interface DecisionHandle {
  approve(): void;
  reject(): void;
}

/** A rejection's extras: the line comments it carries, and whether the work goes back to the agent (a follow-up). */
export interface DecisionExtras {
  comments?: LineComment[];
  again?: boolean;
}

/**
 * The decision as a compact bar that stays at the bottom of the review without hiding the diff: what merging
 * would do now and the checks (the merge preview), an optional note and Approve (and merge), a reason and Reject,
 * or "Request changes" when lines of the diff carry comments (the work goes back to the agent with them, in the
 * same worktree). When the work conflicts with its base or its checks failed or never ran, Approve is not the
 * first thing offered; a conflict can be sent back with its files listed. Without a reason the reject button
 * stays disabled and says so, and the keyboard's r only points at the reason field.
 */
export const DecisionPanel = forwardRef<
  DecisionHandle,
  {
    onDecide(approved: boolean, text: string, merge: boolean, extras?: DecisionExtras): Promise<void>;
    /** The base branch approval can merge the workspace into. */
    mergeInto?: string | null;
    /** The reviewed commit the merge puts on it (the evidence's head), shown by its id. */
    mergeCommit?: string | null;
    /** What merging would do now, and the checks (null: no workspace, or not known yet). */
    preview?: MergePreview | null;
    /** Comments on lines of the diff, sent with a rejection. */
    comments?: LineComment[];
    /** Who worked on it: the one the work goes back to. */
    assignee?: string | null;
  }
>(function DecisionPanel(props, ref) {
  const [note, setNote] = useState('');
  const [merge, setMerge] = useState(Boolean(props.mergeInto));
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reasonField = useRef<HTMLTextAreaElement>(null);
  const comments = props.comments ?? [];
  const preview = props.preview ?? null;
  const heldBack = holdsBack(preview);
  const conflicts = preview?.merge === 'conflicts';

  async function decide(approved: boolean, extras: DecisionExtras = {}, text?: string): Promise<void> {
    const why = (text ?? reason).trim();
    if (!approved && why === '') {
      setProblem('Rejecting needs a reason: say what is wrong so the agent can act on it.');
      reasonField.current?.focus();
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      await props.onDecide(approved, approved ? note.trim() : why, approved && merge && Boolean(props.mergeInto), approved ? undefined : extras);
    } finally {
      setBusy(false);
    }
  }

  const rejectExtras = (): DecisionExtras => (comments.length > 0 ? { comments, again: true } : {});
  useImperativeHandle(ref, () => ({ approve: () => void decide(true), reject: () => void decide(false, rejectExtras()) }));

  const noReason = reason.trim() === '';
  const approveLabel = props.mergeInto && merge ? `Approve and merge${props.mergeCommit ? ` ${props.mergeCommit.slice(0, 7)}` : ''}` : 'Approve';
  return (
    <div className="decision-panel decision-bar" role="group" aria-label="Decision">
      {(preview || props.mergeInto) && (
        <div className="bar-top">
          {preview && <PreviewSummary preview={preview} compact />}
          {props.mergeInto && (
            <label className="merge-choice" title="The commit reviewed here, by its id: a fast-forward, or a merge commit naming the handoff; a conflict, or a file of yours in the way, changes nothing">
              <input type="checkbox" checked={merge} onChange={(e) => setMerge(e.target.checked)} data-testid="merge-choice" /> Merge{' '}
              {props.mergeCommit && (
                <code data-testid="merge-commit" title={props.mergeCommit}>
                  {props.mergeCommit.slice(0, 7)}
                </code>
              )}{' '}
              into <code>{props.mergeInto}</code>
            </label>
          )}
        </div>
      )}
      <div className="bar-row">
        <span className="bar-group approve-group">
          <span className="bar-field note-field">
            <label htmlFor="approve-note" className="visually-hidden">
              Note (optional)
            </label>
            <textarea id="approve-note" rows={1} placeholder="Note (optional)" value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} />
          </span>
          <button type="button" className={heldBack ? 'held-back' : 'primary'} disabled={busy} onClick={() => void decide(true)} data-testid="approve" title={heldBack ? 'Look at the merge preview first: it conflicts, or its checks failed or never ran' : undefined}>
            {approveLabel} <kbd>a</kbd>
          </button>
        </span>
        <span className="bar-group reject-group">
          <span className="bar-field">
            <label htmlFor="reject-reason" className="visually-hidden">
              Reason (required to reject)
            </label>
            <textarea
              id="reject-reason"
              ref={reasonField}
              rows={1}
              placeholder={comments.length > 0 ? `Reason: goes back to ${props.assignee ?? 'the agent'} with ${comments.length} comment${comments.length === 1 ? '' : 's'}` : 'Reason (required to reject)'}
              value={reason}
              maxLength={2000}
              onChange={(e) => {
                setReason(e.target.value);
                if (e.target.value.trim() !== '') setProblem(null);
              }}
            />
          </span>
          <button type="button" className="danger" disabled={busy || noReason} title={noReason ? 'Give a reason to reject' : undefined} onClick={() => void decide(false, rejectExtras())} data-testid="reject">
            {comments.length > 0 ? `Request changes (${comments.length})` : 'Reject'} <kbd>r</kbd>
          </button>
          {conflicts && preview && (
            <button type="button" className="primary" disabled={busy} onClick={() => void decide(false, { again: true, comments }, [reason.trim(), conflictReason(preview)].filter((t) => t !== '').join(' '))} data-testid="send-back-conflicts" title="Reject, listing the conflicting files, and send the work back to the agent in the same worktree">
              Send back with the conflicts
            </button>
          )}
        </span>
      </div>
      {problem && (
        <p className="form-problem" role="alert" data-testid="decision-problem">
          {problem}
        </p>
      )}
    </div>
  );
});
