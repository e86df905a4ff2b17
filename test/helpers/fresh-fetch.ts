import http from 'node:http';
import { Readable } from 'node:stream';

/**
 * A `fetch` that opens a new connection for every request and closes it after (no keep-alive pool): the way
 * a client whose pooled sockets were closed, a script or `curl` reaches the endpoint. Given to the MCP SDK's
 * transport (`fetch` option), every call of a real client goes through the front door's accept path. A
 * socket-level failure rejects with the socket's own error text ("socket hang up", "read ECONNRESET").
 */
export function freshConnectionFetch(url: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const target = new URL(url instanceof Request ? url.url : url);
  const headers = new Headers(init.headers);
  const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : String(init.body as unknown);
  if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
  const sent: Record<string, string> = {};
  headers.forEach((value, name) => (sent[name] = value));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: target.hostname, port: Number(target.port), path: `${target.pathname}${target.search}`, method: init.method ?? 'GET', agent: false, headers: sent },
      (res) => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const status = res.statusCode ?? 0;
        const empty = status === 204 || status === 304;
        if (empty) res.resume();
        resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, headers: out }));
      },
    );
    req.on('error', reject);
    const signal = init.signal;
    const abort = () => req.destroy(new Error('aborted'));
    signal?.addEventListener('abort', abort, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', abort));
    req.end(body);
  });
}
