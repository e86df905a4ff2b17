import type http from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { sendRpcError } from '../../net/http-json';
import { RPC } from '../transport/rpc-errors';
import { TextSplices } from '../splices/text-splices';

/** The web-standard face of createMcpHandler: one Request in, one Response out. */
type FetchFace = (request: Request, options: { authInfo?: AuthInfo; parsedBody?: unknown }) => Promise<Response>;

/**
 * A JSON answer's bytes as they were enqueued: `Response.json` makes one chunk, handed over here as a view
 * without a copy. `arrayBuffer()` copies them twice more (gathering the chunks, then into its result): for a
 * 1 MiB shell page, a 2 MiB answer, that was 4 MiB copied and left for the collector per page (room CPU per
 * page 15.1 -> 12.6 ms, paired rounds of two builds).
 */
async function bodyBytes(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** Writes `pieces` in one go (one writev); false when the socket asks to wait for 'drain'. */
function writeAll(res: http.ServerResponse, pieces: readonly Uint8Array[]): boolean {
  res.cork();
  let flowing = true;
  for (const piece of pieces) flowing = res.write(piece) && flowing;
  process.nextTick(() => res.uncork());
  return flowing;
}

/** A JSON answer made of pieces (the SDK's bytes around spliced strings), sent with its whole length. */
function sendPieces(res: http.ServerResponse, status: number, headers: Record<string, string>, pieces: readonly Buffer[]): void {
  headers['content-length'] = String(pieces.reduce((sum, piece) => sum + piece.length, 0));
  res.writeHead(status, headers);
  res.cork();
  for (const piece of pieces) res.write(piece);
  res.end();
  res.uncork();
}

/**
 * Serves one 2026 request, whose body the front door has already read, size-checked and parsed, through the
 * SDK's web-standard handler. It does what `toNodeHandler` of @modelcontextprotocol/node does, less what a
 * parsed body makes needless: the SDK reads the body it is given (`parsedBody`) and never the Request's, so the
 * Request carries headers and the abort signal only — `toNodeHandler` serialises the parsed body back to JSON,
 * measures it and wraps it in a body stream for every call. A JSON answer is read whole and sent in one write
 * with its length (`toNodeHandler` iterates its stream and sends it chunked); an SSE answer (a call that
 * reports progress) streams, waiting for the socket to drain as `toNodeHandler` does.
 */
export async function serveParsed(fetch: FetchFace, req: http.IncomingMessage, res: http.ServerResponse, body: unknown, authInfo: AuthInfo): Promise<void> {
  // a tool call's large strings skip the SDK's serialisation and are written into its answer here
  // (text-splices.ts); its byte slabs are reused once the answer has been written, never if it was cut short
  const splices = (body as { method?: unknown } | undefined)?.method === 'tools/call' ? new TextSplices() : null;
  if (splices) {
    authInfo = { ...authInfo, extra: { ...authInfo.extra, splices } };
    res.once('finish', () => splices.release());
  }
  const abort = new AbortController();
  let finished = false;
  res.once('close', () => {
    splices?.forget();
    if (!finished) abort.abort();
  });
  let response: Response;
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name === 'content-length' || name === 'transfer-encoding' || name === 'content-encoding') continue;
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else headers.set(name, value);
    }
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/mcp'}`, { method: req.method ?? 'POST', headers, signal: abort.signal });
    response = await fetch(request, { authInfo, parsedBody: body });
  } catch (error) {
    finished = true;
    if (process.env.COMMONROOM_DEBUG) console.error('[mcp] modern:', (error as Error).message);
    if (res.headersSent) return void res.destroy();
    const id = (body as { id?: unknown } | undefined)?.id;
    return sendRpcError(res, 500, RPC.internalError, 'internal error while serving the request; the room logged it', {}, typeof id === 'string' || typeof id === 'number' ? id : null);
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const type = response.headers.get('content-type') ?? '';
  if (response.body === null || !type.startsWith('text/event-stream')) {
    const bytes = response.body === null ? null : await bodyBytes(response.body);
    finished = true;
    if (bytes && splices && splices.size > 0) return sendPieces(res, response.status, headers, splices.splice(bytes));
    if (bytes) headers['content-length'] = String(bytes.length);
    res.writeHead(response.status, headers);
    res.end(bytes ?? undefined);
    return;
  }
  res.writeHead(response.status, headers);
  const closed = new Promise<void>((resolve) => abort.signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (abort.signal.aborted) break;
      // each chunk is one whole event, so a stand-in is never cut between two
      const pieces = splices && splices.size > 0 ? splices.splice(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)) : [chunk];
      if (!writeAll(res, pieces)) await Promise.race([new Promise<void>((resolve) => res.once('drain', () => resolve())), closed]);
    }
  } catch {
    // the stream ended under us (the client went away, or the server closed the exchange): end what was sent
  }
  finished = true;
  res.end();
}
