import { useEffect, useRef, type ReactNode } from 'react';
import './dialog.css';

/**
 * A modal dialog: the browser's own <dialog> shown with showModal(), so it has a backdrop, the rest of the page
 * is inert (focus cannot wander behind it), Escape closes it, and focus moves into it. When it closes, focus
 * goes back to what had it before (the button that opened it).
 */
export function Dialog(props: {
  /** Its name for screen readers (and its heading). */
  title: string;
  onClose(): void;
  children: ReactNode;
  className?: string;
  testId?: string;
}): React.JSX.Element {
  const ref = useRef<HTMLDialogElement>(null);
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    // Escape: the dialog's `cancel`; the parent decides (it unmounts this)
    const cancel = (e: Event) => {
      e.preventDefault();
      onClose.current();
    };
    dialog.addEventListener('cancel', cancel);
    return () => {
      dialog.removeEventListener('cancel', cancel);
      if (dialog.open) dialog.close();
      if (before?.isConnected) before.focus();
    };
  }, []);
  return (
    <dialog ref={ref} className={`dialog ${props.className ?? ''}`} aria-labelledby="dialog-title" data-testid={props.testId}>
      <h2 id="dialog-title">{props.title}</h2>
      {props.children}
    </dialog>
  );
}
