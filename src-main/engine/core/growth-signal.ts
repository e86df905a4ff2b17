/**
 * An in-process "grew" signal for volatile output that is not committed state (a stage's log file): the
 * writer fires it on append, keyed by what grew, and live readers (resource subscriptions, long-polling status
 * calls) wait on it instead of polling. A listener that throws is reported and does not stop the others.
 */
export class GrowthSignal {
  private readonly listeners = new Map<string, Set<() => void>>();

  /** Calls `listener` each time `key` grows; returns the unsubscribe. */
  on(key: string, listener: () => void): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(key) === set) this.listeners.delete(key);
    };
  }

  fire(key: string): void {
    const set = this.listeners.get(key);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener();
      } catch (error) {
        console.error('[growth] listener failed:', error);
      }
    }
  }
}
