import { forwardRef, useImperativeHandle, useRef, useState } from 'react';

export interface DecisionHandle {
  approve(): void;
  reject(): void;
}

/**
 * Approve with an optional note, reject with a required reason: without one the reject button stays
 * disabled and says so, and the keyboard's r only points at the reason field.
 */
export const DecisionPanel = forwardRef<
  DecisionHandle,
  {
    onDecide(approved: boolean, text: string, merge: boolean): Promise<void>;
    /** The base branch approval can merge the workspace into. */
    mergeInto?: string | null;
    /** The reviewed commit the merge puts on it (the evidence's head), shown by its id. */
    mergeCommit?: string | null;
  }
>(function DecisionPanel(props, ref) {
  const [note, setNote] = useState('');
  const [merge, setMerge] = useState(Boolean(props.mergeInto));
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reasonField = useRef<HTMLTextAreaElement>(null);

  async function decide(approved: boolean): Promise<void> {
    if (!approved && reason.trim() === '') {
      setProblem('Rejecting needs a reason: say what is wrong so the agent can act on it.');
      reasonField.current?.focus();
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      await props.onDecide(approved, approved ? note.trim() : reason.trim(), approved && merge && Boolean(props.mergeInto));
    } finally {
      setBusy(false);
    }
  }

  useImperativeHandle(ref, () => ({ approve: () => void decide(true), reject: () => void decide(false) }));

  const noReason = reason.trim() === '';
  return (
    <div className="decision-panel">
      <div className="decide approve-box">
        <label htmlFor="approve-note">Note (optional)</label>
        <textarea id="approve-note" rows={2} value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} />
        {props.mergeInto && (
          <label className="merge-choice">
            <input type="checkbox" checked={merge} onChange={(e) => setMerge(e.target.checked)} data-testid="merge-choice" /> Merge{' '}
            {props.mergeCommit && <code data-testid="merge-commit" title={props.mergeCommit}>{props.mergeCommit.slice(0, 7)}</code>} into <code>{props.mergeInto}</code>
            <span className="muted small"> (the commit reviewed here, by its id: a fast-forward, or a merge commit naming the handoff; a conflict, or a file of yours in the way, changes nothing)</span>
          </label>
        )}
        <button type="button" className="primary" disabled={busy} onClick={() => void decide(true)}>
          {props.mergeInto && merge ? `Approve and merge${props.mergeCommit ? ` ${props.mergeCommit.slice(0, 7)}` : ''}` : 'Approve'} <kbd>a</kbd>
        </button>
      </div>
      <div className="decide reject-box">
        <label htmlFor="reject-reason">
          Reason <span className="req">(required to reject)</span>
        </label>
        <textarea
          id="reject-reason"
          ref={reasonField}
          rows={2}
          value={reason}
          maxLength={2000}
          onChange={(e) => {
            setReason(e.target.value);
            if (e.target.value.trim() !== '') setProblem(null);
          }}
        />
        <button type="button" className="danger" disabled={busy || noReason} title={noReason ? 'Give a reason to reject' : undefined} onClick={() => void decide(false)}>
          Reject <kbd>r</kbd>
        </button>
        {noReason && !problem && <small className="muted">Give a reason to reject.</small>}
      </div>
      {problem && (
        <p className="form-problem" role="alert" data-testid="decision-problem">
          {problem}
        </p>
      )}
    </div>
  );
});
