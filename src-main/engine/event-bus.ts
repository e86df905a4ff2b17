/**
 * Live fan-out of committed events. Publishing happens after the commit and never waits for a listener;
 * a listener that throws is reported and does not stop the others.
 */
export interface RoomEvent {
  id: number;
  at: string;
  kind: string;
  actor: string | null;
  subject: string | null;
  data: unknown;
}

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
