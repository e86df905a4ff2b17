import { useState } from 'react';
import { Dialog } from './Dialog';

/**
 * Asks the person to confirm something that cannot be undone, in the app (not the browser's `confirm()`, which
 * stops the page, cannot be styled or read in the app's words, and is blocked in some embedders). The safe
 * answer has focus first, so Enter does not destroy anything by accident.
 */
export function ConfirmDialog(props: {
  title: string;
  /** What will happen, in plain words. */
  message: string;
  /** The button that does it ("Cancel the graph", "Sign out"). */
  confirm: string;
  /** The button that does nothing (default "Keep it"). */
  keep?: string;
  /** An optional reason the person may give (its label; what they typed goes to onConfirm, trimmed). */
  reason?: { label: string; maxLength: number };
  onConfirm(reason: string): void;
  onClose(): void;
}): React.JSX.Element {
  const [reason, setReason] = useState('');
  return (
    <Dialog title={props.title} onClose={props.onClose} testId="confirm-dialog">
      <p>{props.message}</p>
      {props.reason && (
        <div className="field">
          <label htmlFor="confirm-reason">{props.reason.label}</label>
          <textarea id="confirm-reason" rows={3} maxLength={props.reason.maxLength} value={reason} onChange={(e) => setReason(e.target.value)} />
        </div>
      )}
      <div className="dialog-actions">
        <button type="button" autoFocus onClick={props.onClose}>
          {props.keep ?? 'Keep it'}
        </button>
        <button
          type="button"
          className="danger"
          data-testid="confirm-yes"
          onClick={() => {
            props.onConfirm(reason.trim());
            props.onClose();
          }}
        >
          {props.confirm}
        </button>
      </div>
    </Dialog>
  );
}
