import type http from 'node:http';
import type { AuthInfo, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Caller } from '../../common/dto';
import { RPC } from '../transport/rpc-errors';
import { carriesStandIn, TextSplices } from './text-splices';

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

type RequestId = string | number;
const ORPHANS_KEPT = 256;
type SseWriter = (controller: ReadableStreamDefaultController<Uint8Array>, encoder: { encode(text: string): Uint8Array }, message: unknown, eventId?: string) => boolean;

/**
 * One 2025 session's answers with their held strings written in (text-splices.ts). Each tool call POSTed to
 * the session gets its own splices, in the auth info the SDK's Node transport hands its handler; when the
 * transport writes the answer to that request as an SSE event, the event is made here, its stand-ins replaced
 * by their bytes. Reaches the transport's web-standard half (`writeSSEEvent`, an SDK internal), as
 * sse-at-once.ts does; without it nothing is held (the handler finds no splices) and answers go out whole.
 */
export class SessionSplices {
  /** The splices of each request in flight, by its JSON-RPC id. */
  private readonly pending = new Map<RequestId, TextSplices>();
  /**
   * Requests whose POST stream closed before their answer, after it had held strings: the client may resume the
   * stream (GET with Last-Event-ID) and be sent that answer there, whose strings are gone by then.
   */
  private readonly orphaned = new Set<RequestId>();
  private attached = false;

  /**
   * Gives a POSTed tool call (one JSON-RPC request, not a batch) splices of its own until its answer is written.
   * Only a tools/call: the client's own answers to the room's requests carry ids too, from another id space, and
   * must not take the place of a call in flight with the same id.
   */
  hold(req: http.IncomingMessage, res: http.ServerResponse, caller: Caller, body: unknown): void {
    const message = body as { id?: unknown; method?: unknown } | null | undefined;
    const id = message?.id;
    if (!this.attached || Array.isArray(body) || message?.method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return;
    if (this.pending.has(id)) return;
    this.orphaned.delete(id);
    const splices = new TextSplices();
    (req as http.IncomingMessage & { auth?: AuthInfo }).auth = { token: 'verified', clientId: caller.name, scopes: [...caller.capabilities], extra: { caller, splices } };
    this.pending.set(id, splices);
    const done = (written: boolean) => {
      if (this.pending.get(id) !== splices) return;
      this.pending.delete(id);
      if (written) return splices.release();
      // cut short: a later answer to it holds nothing and goes out whole; one that already held strings is sent,
      // if the stream is resumed, as the error the replay buffer keeps for it (eras/event-store-2025.ts)
      if (splices.size > 0) this.orphan(id);
      splices.forget();
    };
    // the slabs are reused once the answer's stream has been written out, and never if it was cut short
    res.once('finish', () => done(true));
    res.once('close', () => done(false));
  }

  /** Makes the session's transport write answers that held strings through these splices. */
  attach(transport: NodeStreamableHTTPServerTransport): void {
    const web = (transport as unknown as { _webStandardTransport?: { writeSSEEvent?: SseWriter } })._webStandardTransport;
    if (!web || typeof web.writeSSEEvent !== 'function') return;
    const write = web.writeSSEEvent.bind(web);
    const onerror = (error: unknown) => (web as { onerror?: (error: Error) => void }).onerror?.(error as Error);
    web.writeSSEEvent = (controller, encoder, message, eventId) => {
      const id = (message as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' && typeof id !== 'number') return write(controller, encoder, message, eventId);
      if (this.orphaned.delete(id)) return write(controller, encoder, keptForReplay(message as JSONRPCMessage), eventId);
      const splices = this.pending.get(id);
      if (!splices || splices.size === 0) return write(controller, encoder, message, eventId);
      try {
        // the event as the SDK makes it, its stand-ins then replaced
        const event = `event: message\n${eventId ? `id: ${eventId}\n` : ''}data: ${JSON.stringify(message)}\n\n`;
        for (const piece of splices.splice(Buffer.from(event))) controller.enqueue(piece);
        return true;
      } catch (error) {
        onerror(error);
        return false;
      }
    };
    this.attached = true;
  }

  private orphan(id: RequestId): void {
    this.orphaned.add(id);
    // ids of calls whose streams were never resumed: only the newest are worth remembering
    if (this.orphaned.size > ORPHANS_KEPT) this.orphaned.delete(this.orphaned.values().next().value as RequestId);
  }
}
