import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { keptForReplay } from '../splices/session-splices';

/**
 * Replay buffer for one legacy session's SSE streams (resumability with Last-Event-ID). Bounded: the oldest
 * messages fall out first, so a client that comes back too late gets what is left, never unbounded memory.
 */
export class BoundedEventStore implements EventStore {
  private readonly events: { id: string; streamId: string; message: JSONRPCMessage }[] = [];
  private seq = 0;

  constructor(private readonly capacity: number) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.seq}`;
    this.events.push({ id, streamId, message: keptForReplay(message) });
    if (this.events.length > this.capacity) this.events.splice(0, this.events.length - this.capacity);
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.find((e) => e.id === eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const index = this.events.findIndex((e) => e.id === lastEventId);
    if (index < 0) return '';
    const { streamId } = this.events[index] as { streamId: string };
    for (const e of this.events.slice(index + 1)) {
      // priming events carry an empty message: nothing to replay for them
      if (e.streamId === streamId && Object.keys(e.message).length > 0) await send(e.id, e.message);
    }
    return streamId;
  }
}
