/**
 * Listeners of one kind, their set made only once there is one: most shells never have a listener of most
 * kinds, and a room of idle shells pays for every set a shell keeps (~150 bytes each, empty).
 */
export class Listeners<T extends unknown[] = []> {
  private set: Set<(...args: T) => void> | undefined;

  /** Adds `listener`; returns an unsubscribe. */
  add(listener: (...args: T) => void): () => void {
    (this.set ??= new Set()).add(listener);
    return () => {
      this.set?.delete(listener);
    };
  }

  get size(): number {
    return this.set?.size ?? 0;
  }

  emit(...args: T): void {
    if (!this.set || this.set.size === 0) return;
    // a copy: a listener may unsubscribe others or subscribe new ones (those hear the next one, not this one)
    for (const listener of [...this.set]) listener(...args);
  }
}
