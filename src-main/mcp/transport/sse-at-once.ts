import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';

type WebTransport = { handleRequest: (...args: never[]) => Promise<Response> };

/**
 * A 2025 session's answers are SSE streams. Since protocol 2025-11-25 each starts with a priming event (an
 * event id for resumption) that is queued before the answer is ready. The Node adapter (@hono/node-server)
 * reads a streamed body ahead to give a small one a Content-Length unless the answer says it is chunked, and
 * when the first read gave a chunk but the second would wait, it waits a timer turn (≥ 1 ms) before it sends
 * the headers: measured, 1.6 → 3.1 ms to the headers of every call (the 2025 single-client `mcp-call` rows at
 * 0.6× the bare server, which sends no priming event). Marking SSE answers chunked, which they are anyway,
 * has them sent at once. Reaches the transport's web-standard half (an SDK internal); without it, nothing
 * changes but the delay.
 */
export function sendSseAtOnce(transport: NodeStreamableHTTPServerTransport): void {
  const web = (transport as unknown as { _webStandardTransport?: WebTransport })._webStandardTransport;
  if (!web || typeof web.handleRequest !== 'function') return;
  const handle = web.handleRequest.bind(web);
  web.handleRequest = async (...args: never[]) => {
    const response = await handle(...args);
    if (response.body && response.headers.get('content-type')?.startsWith('text/event-stream') && !response.headers.has('content-length')) {
      response.headers.set('transfer-encoding', 'chunked');
    }
    return response;
  };
}
