import { Component, type ReactNode } from 'react';
import { EmptyState } from './EmptyState';

/** A screen that throws while drawing shows what failed and a way back, instead of a blank window. */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, { error: Error | null; key: string }> {
  override state = { error: null as Error | null, key: this.props.resetKey };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  static getDerivedStateFromProps(props: { resetKey: string }, state: { error: Error | null; key: string }) {
    // choosing another screen clears the error
    return props.resetKey === state.key ? null : { error: null, key: props.resetKey };
  }

  override render(): ReactNode {
    if (!this.state.error) return this.props.children;
    return (
      <EmptyState
        tone="error"
        title="This screen failed to draw"
        text={`${this.state.error.message}. The room itself is unaffected. Reload the window to try again.`}
        action={
          <button type="button" onClick={() => window.location.reload()}>
            Reload
          </button>
        }
      />
    );
  }
}
