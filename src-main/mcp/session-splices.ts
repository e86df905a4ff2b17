import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { TextSplices } from './text-splices';

type WebHandle = (request: Request, options?: { authInfo?: { extra?: Record<string, unknown> } }) => Promise<Response>;

/**
 * A 2025 session's answers with their held strings written in (text-splices.ts). Each POST brings its own
 * splices in its auth info; the SSE stream the transport answers it with is passed on event by event (each
 * chunk is one whole event, so a stand-in is never cut between two), each event's stand-ins replaced. Reaches
 * the transport's web-standard half, as sse-at-once.ts does; without it nothing is held (the handler finds
 * no splices), and answers go out whole as before.
 */
export function spliceSessionAnswers(transport: NodeStreamableHTTPServerTransport): void {
  const web = (transport as unknown as { _webStandardTransport?: { handleRequest?: WebHandle } })._webStandardTransport;
  if (!web || typeof web.handleRequest !== 'function') return;
  const handle = web.handleRequest.bind(web);
  web.handleRequest = async (request, options) => {
    const response = await handle(request, options);
    const splices = options?.authInfo?.extra?.splices;
    if (!(splices instanceof TextSplices) || !response.body) return response;
    const spliced = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (splices.size === 0) return controller.enqueue(chunk);
          for (const piece of splices.splice(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))) controller.enqueue(piece);
        },
      }),
    );
    return new Response(spliced, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
