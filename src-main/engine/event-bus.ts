/**
 * Live fan-out of committed events. Publishing happens after the commit and never waits for a listener;
 * a listener that throws is reported and does not stop the others.
 */
import type { EventView } from '../common/handoff-dto';

/** A committed event row, as every door shows it. */
export type RoomEvent = EventView;

export type Listener = (event: RoomEvent) => void;

export class EventBus {
  private readonly listeners = new Set<Listener>();

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: RoomEvent): void {
    for (const listener of [...this.listeners]) {
      queueMicrotask(() => {
        try {
          listener(event);
        } catch (error) {
          console.error('[events] listener failed:', error);
        }
      });
    }
  }
}
