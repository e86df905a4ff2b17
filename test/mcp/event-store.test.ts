import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { BoundedEventStore } from '../../src-main/mcp/eras/event-store-2025';
import { RPC } from '../../src-main/mcp/transport/rpc-errors';
import { SPLICE_MIN_CHARS, TextSplices } from '../../src-main/mcp/splices/text-splices';

// A 2025 session keeps its last answers to replay them to a client that resumes a broken stream. An answer whose
// large strings were written in as it was sent (text-splices.ts) is not kept whole: its replay says to call again.

async function replayAfter(store: BoundedEventStore, eventId: string): Promise<JSONRPCMessage[]> {
  const sent: JSONRPCMessage[] = [];
  await store.replayEventsAfter(eventId, { send: async (_id, message) => void sent.push(message) });
  return sent;
}

describe('the 2025 replay buffer', () => {
  it('replays small answers as they were, and an answer that held a large string as an error for the same id saying to call again', async () => {
    const store = new BoundedEventStore(16);
    const first = await store.storeEvent('s1', { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'small' }] } } as JSONRPCMessage);
    const held = new TextSplices().holdIn({ output: 'y'.repeat(SPLICE_MIN_CHARS) });
    await store.storeEvent('s1', { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: JSON.stringify(held) }], structuredContent: held } } as JSONRPCMessage);
    await store.storeEvent('s1', { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'after' }] } } as JSONRPCMessage);
    await store.storeEvent('s2', { jsonrpc: '2.0', id: 4, result: {} } as JSONRPCMessage);
    const replayed = await replayAfter(store, first);
    expect(replayed).toHaveLength(2);
    expect(replayed[0]).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: RPC.replayDropped, message: expect.stringMatching(/too large to keep for replay.*send the same call again/) } });
    expect(replayed[1]).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'after' }] } });
  });
});
