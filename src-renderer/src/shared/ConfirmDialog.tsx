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
  onConfirm(): void;
  onClose(): void;
}): React.JSX.Element {
  return (
    <Dialog title={props.title} onClose={props.onClose} testId="confirm-dialog">
      <p>{props.message}</p>
      <div className="dialog-actions">
        <button type="button" autoFocus onClick={props.onClose}>
          {props.keep ?? 'Keep it'}
        </button>
        <button
          type="button"
          className="danger"
          data-testid="confirm-yes"
          onClick={() => {
            props.onConfirm();
            props.onClose();
          }}
        >
          {props.confirm}
        </button>
      </div>
    </Dialog>
  );
}
