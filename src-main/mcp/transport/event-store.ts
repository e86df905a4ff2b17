import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { RPC } from './rpc-errors';
import { carriesStandIn } from '../splices/text-splices';

/**
 * What is kept for replay of an answer that held large strings (text-splices.ts), and what a resumed stream is
 * sent for one whose strings are gone: an error for the same request that says to call again. The strings are
 * written into the answer as it is sent and not kept, so a replay buffer of 256 answers cannot hold 256 shell
 * pages of a megabyte (each twice: the structured content and its JSON text); the page itself stays readable by
 * its cursor.
 */
export function keptForReplay(message: JSONRPCMessage): JSONRPCMessage {
  const id = (message as { id?: unknown }).id;
  if ((typeof id !== 'string' && typeof id !== 'number') || !carriesStandIn(message)) return message;
  return {
    jsonrpc: '2.0',
    id,
    error: { code: RPC.replayDropped, message: 'this answer was too large to keep for replay after the stream broke: send the same call again (a shell page is read again by its cursor)' },
  } as JSONRPCMessage;
}

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
