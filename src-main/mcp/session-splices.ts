import type http from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Caller } from '../common/dto';
import { TextSplices } from './text-splices';

type RequestId = string | number;
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
   * Gives a POSTed tool call (one JSON-RPC request, not a batch) splices of its own until its answer is written.
   * Only a tools/call: the client's own answers to the room's requests carry ids too, from another id space, and
   * must not take the place of a call in flight with the same id.
   */
  hold(req: http.IncomingMessage, res: http.ServerResponse, caller: Caller, body: unknown): void {
    const message = body as { id?: unknown; method?: unknown } | null | undefined;
    const id = message?.id;
    if (Array.isArray(body) || message?.method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return;
    if (this.pending.has(id)) return;
    const splices = new TextSplices();
    (req as http.IncomingMessage & { auth?: AuthInfo }).auth = { token: 'verified', clientId: caller.name, scopes: [...caller.capabilities], extra: { caller, splices } };
    this.pending.set(id, splices);
    const done = (written: boolean) => {
      if (this.pending.get(id) === splices) this.pending.delete(id);
      if (written) splices.release();
      else splices.forget();
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
    web.writeSSEEvent = (controller, encoder, message, eventId) => {
      const id = (message as { id?: unknown } | null)?.id;
      const splices = typeof id === 'string' || typeof id === 'number' ? this.pending.get(id) : undefined;
      if (!splices || splices.size === 0) return write(controller, encoder, message, eventId);
      try {
        // the event as the SDK makes it, its stand-ins then replaced
        const event = `event: message\n${eventId ? `id: ${eventId}\n` : ''}data: ${JSON.stringify(message)}\n\n`;
        for (const piece of splices.splice(Buffer.from(event))) controller.enqueue(piece);
        return true;
      } catch {
        return false;
      }
    };
  }
}
