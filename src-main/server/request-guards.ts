import type http from 'node:http';
import type net from 'node:net';
import { RPC } from '../mcp/rpc-errors';

/**
 * What the front door checks on raw bytes before any handler runs: the body's size and deadline (declared or
 * chunked, the same answer), the JSON's nesting depth, and how many sockets one client address holds.
 */
export class BodyTooLarge extends Error {}
export class BodyTooSlow extends Error {}

/**
 * Reads a body up to `limit` bytes within `timeoutMs`. Past the limit or the deadline it stops collecting,
 * keeps draining what the client still sends (so the refusal can be read), and rejects.
 */
export function readBody(req: http.IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      return reject(new BodyTooLarge());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: Error | null) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (error) {
        req.on('error', () => undefined);
        req.resume();
        reject(error);
      } else resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) stop(new BodyTooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => stop(null);
    const onError = (error: Error) => stop(error);
    const timer = setTimeout(() => stop(new BodyTooSlow()), timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** How long a refused client may go on sending after its answer before its socket is closed outright. */
const LINGER_MS = 2_000;

/**
 * A body refused before it was all sent (413) is answered with `Connection: close`. Closing a socket whose
 * client is still sending makes the kernel reset the connection, and a reset can destroy the answer before the
 * client read it (seen under load: the client saw no status at all). So, as web servers do, the socket closes
 * only our side once the answer is out and keeps reading (the request is drained) until the client is done or
 * LINGER_MS passed: every client gets the refusal it is owed, and a client that never stops is cut off.
 */
export function lingerBeforeClose(socket: net.Socket): void {
  const closeSoon = socket as net.Socket & { destroySoon?: () => void };
  if (typeof closeSoon.destroySoon !== 'function') return;
  closeSoon.destroySoon = function lingeringClose(this: net.Socket) {
    this.end();
    const cutOff = setTimeout(() => this.destroy(), LINGER_MS);
    cutOff.unref();
    this.once('close', () => clearTimeout(cutOff));
    this.once('end', () => this.destroy());
  };
}

export { nestsDeeperThan } from '../net/json-depth';

/**
 * Caps open sockets per client address and in all. A socket over a cap gets a JSON 503 and is closed at once,
 * before its request is parsed.
 */
export function capConnections(server: http.Server, perAddress: number, total: number): void {
  const open = new Map<string, number>();
  let all = 0;
  server.on('connection', (socket: net.Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const mine = open.get(address) ?? 0;
    if (mine >= perAddress || all >= total) {
      const which = mine >= perAddress ? `${perAddress} connections from ${address}` : `${total} connections in all`;
      const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: RPC.transportRefused, message: `too many open connections (${which}): close some, or reuse one (keep-alive)` } });
      socket.end(`HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      socket.destroySoon();
      return;
    }
    open.set(address, mine + 1);
    all++;
    socket.once('close', () => {
      all--;
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
