/**
 * Live fan-out of committed events. Publishing happens after the commit and never waits for a listener;
 * a listener that throws is reported and does not stop the others.
 */
import type { EventView } from '../../common/handoff-dto';

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

/**
 * A long-poll on the change feed (tasks_status's and handoff_get's waits): resolves once `ends` says an event
 * ends it, when the caller gave up (`signal`: its request aborted or its connection closed), or at `waitMs`
 * (the wait's deadline). `alsoWake` hooks another wake-up (a log's "grew" signal) and returns its unhook.
 */
export function waitOnFeed(
  bus: EventBus,
  waitMs: number,
  signal: AbortSignal | undefined,
  ends: (event: RoomEvent) => boolean,
  alsoWake?: (wake: () => void) => () => void,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const stops: (() => void)[] = [];
    const done = () => {
      for (const stop of stops.splice(0)) stop();
      resolve();
    };
    const deadline = setTimeout(done, waitMs);
    stops.push(() => clearTimeout(deadline));
    stops.push(bus.subscribe((event) => ends(event) && done()));
    if (signal?.aborted) return done();
    signal?.addEventListener('abort', done, { once: true });
    stops.push(() => signal?.removeEventListener('abort', done));
    if (alsoWake) stops.push(alsoWake(done));
  });
}
