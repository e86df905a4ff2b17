import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy that adds a bearer token to every request, for clients that cannot send one (the official
 * conformance CLI). It stands for a client configured with its token: Host and Origin naming the proxy are
 * rewritten to name the server, anything else (an evil Host, a foreign Origin) passes untouched so the
 * server's own checks still decide.
 */
export async function startAuthProxy(target: URL, token: string): Promise<{ url: URL; close(): Promise<void> }> {
  const targetHost = `${target.hostname}:${target.port}`;
  let self = '';
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (headers.host === self || headers.host === self.replace('127.0.0.1', 'localhost')) headers.host = targetHost;
    if (typeof headers.origin === 'string' && (headers.origin === `http://${self}` || headers.origin === `http://${self.replace('127.0.0.1', 'localhost')}`)) {
      headers.origin = `http://${targetHost}`;
    }
    const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  self = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: new URL(`http://${self}/mcp`),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
