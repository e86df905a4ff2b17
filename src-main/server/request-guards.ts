import type http from 'node:http';
import type net from 'node:net';
import { RPC } from '../mcp/transport/rpc-errors';

/**
 * What the front door checks on raw bytes before any handler runs: the body's size and deadline (declared or
 * chunked, the same answer), the JSON's nesting depth, and how many sockets each participant holds.
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

/** A JSON 503 written straight on a socket (before or instead of its request's answer), then closed. */
function refuseSocket(socket: net.Socket, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: RPC.transportRefused, message } });
  socket.end(`HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  socket.destroySoon();
}

/**
 * How long a socket has to send its request before it may be closed to make room for another: a client sends
 * at once after connecting, so a socket that said nothing this long is a squatter, while a younger one may have
 * a request on its way (closing it was the "socket hang up" another agent saw under a flood of connections).
 */
export const UNAUTHENTICATED_GRACE_MS = 1_000;

export interface ConnectionBudgetOptions {
  total: number;
  unauthenticated: number;
  unauthenticatedIdleMs: number;
  perParticipant: number;
  reservedForOperator: number;
}

/** A socket that has not (yet) sent a valid token: its idle deadline, since when it is quiet, requests in flight. */
interface Pending {
  idle: NodeJS.Timeout;
  quietSince: number;
  requests: number;
}

/**
 * Open sockets, counted by who holds them (LIMITS.maxConnections and the limits after it). Everyone connects
 * from 127.0.0.1, so a cap per address would let one local program lock everybody out. A socket starts
 * unauthenticated: such sockets have a small budget of their own and a short idle time; past the budget the
 * one quiet longest is closed, but only once it had UNAUTHENTICATED_GRACE_MS to send its request and none is in
 * flight on it (until then a new socket is let in over the budget, within the total): a flood of connections
 * never closes another client's socket with its request on the way. Only at the total does a newcomer close
 * the quietest even within its grace, so that the person still gets in. The first request with a valid token
 * claims the socket for its participant: an agent may hold only so many, and agents together leave room for
 * the operator, who is never refused.
 */
export class ConnectionBudget {
  private readonly unauth = new Map<net.Socket, Pending>();
  private readonly held = new Map<string, Set<net.Socket>>();
  private readonly owner = new WeakMap<net.Socket, { name: string; operator: boolean }>();
  private all = 0;
  private agents = 0;
  private trimScheduled = false;

  constructor(private readonly options: ConnectionBudgetOptions) {}

  attach(server: http.Server): void {
    server.on('connection', (socket: net.Socket) => this.accept(socket));
    // before the door's own handler: a request on an unauthenticated socket is in flight until answered
    server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => this.requestStarted(req.socket, res));
  }

  private accept(socket: net.Socket): void {
    // at the total a newcomer (the person's among them) still gets in: the quietest goes even within its grace
    if (this.all >= this.options.total && !this.closeQuietest(0)) {
      return refuseSocket(socket, `too many open connections (${this.options.total} in all): close some, or reuse one (keep-alive)`);
    }
    this.all++;
    this.trackUnauthenticated(socket);
    if (this.unauth.size > this.options.unauthenticated) this.scheduleTrim();
    socket.once('close', () => {
      this.all--;
      this.untrackUnauthenticated(socket);
      const who = this.owner.get(socket);
      if (who) this.release(socket, who);
    });
  }

  /**
   * Brings the unauthenticated sockets back within their budget, after this turn's reads: a socket accepted in
   * the same batch as a flood of others has had its request (if it sent one) parsed and claimed by then.
   */
  private scheduleTrim(): void {
    if (this.trimScheduled) return;
    this.trimScheduled = true;
    setImmediate(() => {
      this.trimScheduled = false;
      while (this.unauth.size > this.options.unauthenticated && this.closeQuietest(UNAUTHENTICATED_GRACE_MS));
    });
  }

  private requestStarted(socket: net.Socket, res: http.ServerResponse): void {
    const pending = this.unauth.get(socket);
    if (!pending) return;
    pending.requests++;
    res.once('close', () => {
      pending.requests--;
      pending.quietSince = performance.now();
    });
  }

  /**
   * The request on `socket` authenticated as `name`: the socket is theirs from now on. Answers why it is
   * refused (an agent at its share), or null.
   */
  claim(socket: net.Socket, name: string, operator: boolean): string | null {
    const current = this.owner.get(socket);
    if (current?.name === name) return null;
    if (!operator) {
      const mine = this.held.get(name)?.size ?? 0;
      if (mine >= this.options.perParticipant) {
        return `${name} has ${mine} connections open, its share (at most ${this.options.perParticipant} per agent): close some, or reuse one (keep-alive)`;
      }
      const room = this.options.total - this.options.reservedForOperator - this.options.unauthenticated;
      if (this.agents >= room) return `agents hold ${this.agents} connections, all they may (${room}; the rest is kept for the person): close some, or reuse one`;
    }
    if (current) this.release(socket, current);
    this.untrackUnauthenticated(socket);
    this.owner.set(socket, { name, operator });
    let set = this.held.get(name);
    if (!set) this.held.set(name, (set = new Set()));
    set.add(socket);
    if (!operator) this.agents++;
    return null;
  }

  /** Open connections of a participant (for messages and tests). */
  countOf(name: string): number {
    return this.held.get(name)?.size ?? 0;
  }

  get unauthenticated(): number {
    return this.unauth.size;
  }

  private release(socket: net.Socket, who: { name: string; operator: boolean }): void {
    const set = this.held.get(who.name);
    if (set?.delete(socket) && !who.operator) this.agents--;
    if (set && set.size === 0) this.held.delete(who.name);
    this.owner.delete(socket);
  }

  private trackUnauthenticated(socket: net.Socket): void {
    const idle = setTimeout(() => {
      if (this.unauth.has(socket)) socket.destroy();
    }, this.options.unauthenticatedIdleMs);
    idle.unref();
    this.unauth.set(socket, { idle, quietSince: performance.now(), requests: 0 });
  }

  private untrackUnauthenticated(socket: net.Socket): void {
    const pending = this.unauth.get(socket);
    if (pending === undefined) return;
    clearTimeout(pending.idle);
    this.unauth.delete(socket);
  }

  /**
   * Closes the unauthenticated socket quiet longest, if it has been quiet at least `graceMs` with no request in
   * flight; false when there is none such.
   */
  private closeQuietest(graceMs: number): boolean {
    let quietest: net.Socket | undefined;
    let since = performance.now() - graceMs;
    for (const [socket, pending] of this.unauth) {
      if (pending.requests === 0 && pending.quietSince <= since) {
        quietest = socket;
        since = pending.quietSince;
      }
    }
    if (!quietest) return false;
    this.untrackUnauthenticated(quietest);
    quietest.destroy();
    return true;
  }
}
