import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Caller } from '../common/dto';
import type { DoorEngine } from '../engine/index';
import { sendJson, sendPage, sendRpcError, wantsHtml } from '../net/http-json';
import type { McpEndpoint } from '../mcp/endpoint';
import type { ApiRoute } from '../api/http-api';
import { RPC } from '../mcp/transport/rpc-errors';
import { apiErrorBody, HTTP_STATUS } from '../api/http-status';
import { WORKSPACE_TASK_PATH } from '../api/workspace-task';
import { OtlpDoor } from '../api/otlp-door';
import { bearerToken } from '../net/bearer';
import { BodyTooLarge, BodyTooSlow, ConnectionBudget, lingerBeforeClose, nestsDeeperThan, readBody } from './request-guards';
import type { Duplex } from 'node:stream';
import { UI_PATH, UI_SOCKET_PATH } from '../common/ui-protocol';
import { OTLP_EXPORT_INTERVAL_MS } from '../common/clients/types';
import type { UiStatic } from '../bridge/ui-static';
import { refuseUpgrade, type UiSocketDoor } from '../bridge/ui-socket';

/**
 * The UI door over HTTP: the browser UI's files (under `commonroom serve` only) and its WebSocket, which the
 * browser opens with its cookie and `ce shell attach` with the operator's bearer token (also in the app).
 */
export interface UiDoors {
  files: UiStatic | undefined;
  socket: UiSocketDoor;
}

/**
 * The loopback HTTP front door shared by every HTTP door (MCP at /mcp, the API at /api/*). It refuses before
 * anything else runs: a Host that is not exactly this server, an Origin that is not the app's own, a missing or
 * wrong bearer token, a body over the limit, JSON that does not parse. Every refusal is a JSON body.
 * The browser UI (/ui/ and its WebSocket) passes the same Host/Origin checks, then its own sign-in check.
 * Open connections are counted by who holds them (ConnectionBudget), never by address: all are loopback.
 */
export interface FrontDoorOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  headersTimeoutMs: number;
  maxConnections: number;
  maxUnauthenticatedConnections: number;
  unauthenticatedIdleMs: number;
  maxConnectionsPerParticipant: number;
  reservedOperatorConnections: number;
  maxJsonDepth: number;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host);
}

export function refuseHostMessage(host: string): string {
  return `refusing to listen on ${host}: Commonroom serves loopback only (127.0.0.1, ::1 or localhost); to reach it from elsewhere, put a transport of your choice in front of it (an SSH tunnel, say)`;
}


export class FrontDoor {
  readonly server: http.Server;
  readonly budget: ConnectionBudget;
  private allowedHosts = new Set<string>();
  private allowedOrigins = new Set<string>();
  /** The room's OTLP receiver: the usage metrics of the agent clients it starts (docs/spend.md). */
  private readonly otlp: OtlpDoor;

  constructor(
    private readonly engine: DoorEngine,
    private readonly mcp: McpEndpoint,
    private readonly api: ApiRoute,
    private readonly options: FrontDoorOptions,
    private readonly ui?: UiDoors,
  ) {
    this.otlp = new OtlpDoor(engine, options.maxBodyBytes);
    this.server = http.createServer((req, res) => {
      this.route(req, res).catch((error: unknown) => {
        // one line, never a stack: a client must not be able to write stack traces to the log
        const summary = error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]?.slice(0, 200)}` : 'non-error thrown';
        console.error(`[http] ${req.method ?? ''} request failed: ${summary}`);
        if (process.env.COMMONROOM_DEBUG) console.error(error);
        if (!res.headersSent) sendRpcError(res, 500, RPC.internalError, 'internal error: the runner logged the details');
        else res.end();
      });
    });
    // headers and body have deadlines (requestTimeout covers receiving the request only: SSE streams and long
    // waits answer after it and are not cut); the body also has its own deadline in readBody
    this.server.headersTimeout = options.headersTimeoutMs;
    this.server.requestTimeout = options.headersTimeoutMs + options.bodyTimeoutMs;
    // an idle kept-alive connection outlives the pause between two OTLP exports of a client the room started
    // (OTLP_EXPORT_INTERVAL_MS) with room to spare: at equal times the server closed the socket just as the client
    // reused it, the export failed, and a delta client's usage in it was lost for good (seen under load)
    this.server.keepAliveTimeout = OTLP_EXPORT_INTERVAL_MS * 2;
    this.budget = new ConnectionBudget({
      total: options.maxConnections,
      unauthenticated: options.maxUnauthenticatedConnections,
      unauthenticatedIdleMs: options.unauthenticatedIdleMs,
      perParticipant: options.maxConnectionsPerParticipant,
      reservedForOperator: options.reservedOperatorConnections,
    });
    this.budget.attach(this.server);
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      try {
        this.upgrade(req, socket, head);
      } catch (error) {
        console.error(`[http] upgrade failed: ${error instanceof Error ? error.message.split('\n')[0] : 'non-error thrown'}`);
        socket.destroy();
      }
    });
  }

  private get port(): number {
    return (this.server.address() as AddressInfo | null)?.port ?? 0;
  }

  /**
   * A WebSocket upgrade: only the browser UI's socket, only with exactly this server's Host and an Origin that is
   * this very server (a browser always sends one; a page of any other origin, another local port included, is
   * refused), then the UI cookie.
   */
  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const host = req.headers.host;
    if (typeof host !== 'string' || !this.allowedHosts.has(host.toLowerCase())) {
      return refuseUpgrade(socket, 403, 'Forbidden', `forbidden Host header ${JSON.stringify(host ?? '')}`);
    }
    const origin = req.headers.origin;
    const token = bearerToken(req);
    if (origin === undefined && token !== null) {
      // a local program (ce shell attach), not a page: browsers always send an Origin on a WebSocket upgrade,
      // so no web page can take this path; the operator's token stands in for the UI cookie
      const caller = this.engine.authenticate(token);
      if (!caller) return refuseUpgrade(socket, 401, 'Unauthorized', 'invalid or revoked bearer token');
      if (caller.role !== 'operator') {
        return refuseUpgrade(socket, 403, 'Forbidden', 'only the operator token may attach to the UI socket (it acts as the operator)');
      }
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (!this.ui || path !== UI_SOCKET_PATH) return refuseUpgrade(socket, 404, 'Not Found', `no WebSocket at ${path}`);
      this.budget.claim(req.socket, caller.name, true);
      return this.ui.socket.handleUpgrade(req, socket, head, true);
    }
    if (typeof origin !== 'string' || origin.toLowerCase() !== `http://${host.toLowerCase()}`) {
      return refuseUpgrade(socket, 403, 'Forbidden', `forbidden Origin ${JSON.stringify(origin ?? '')}: only the Commonroom UI served here may open its socket`);
    }
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (!this.ui || pathname !== UI_SOCKET_PATH) return refuseUpgrade(socket, 404, 'Not Found', `no WebSocket at ${pathname}`);
    // a signed-in page is the person: its socket is the operator's, never refused for room
    this.ui.socket.handleUpgrade(req, socket, head, false, () => void this.budget.claim(req.socket, this.engine.operator().name, true));
  }

  /** Binds to loopback only. Rejects with a clear error when the port is taken. */
  async listen(): Promise<URL> {
    const { host, port } = this.options;
    if (!isLoopbackHost(host)) {
      throw new Error(refuseHostMessage(host));
    }
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        this.server.off('listening', onListening);
        if (error.code === 'EADDRINUSE') {
          reject(
            new Error(
              `port ${port} on ${host} is already in use (another Commonroom, or another program): ` +
                'pass --port N for another port, or --port 0 for a free one',
            ),
          );
        } else reject(error);
      };
      const onListening = () => {
        this.server.off('error', onError);
        resolve();
      };
      this.server.once('error', onError);
      this.server.once('listening', onListening);
      this.server.listen(port, host === 'localhost' ? '127.0.0.1' : host);
    });
    const bound = (this.server.address() as AddressInfo).port;
    this.allowedHosts = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`, `[::1]:${bound}`]);
    this.allowedOrigins = new Set([...this.allowedHosts].map((h) => `http://${h}`));
    const urlHost = host === '::1' ? '[::1]' : host === 'localhost' ? '127.0.0.1' : host;
    return new URL(`http://${urlHost}:${bound}/`);
  }

  async close(): Promise<void> {
    await this.ui?.socket.close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** Authenticates a request, answering 401 itself when it cannot. */
  private authenticate(req: http.IncomingMessage, res: http.ServerResponse, rpc: boolean): Caller | null {
    const token = bearerToken(req);
    const caller = token === null ? null : this.engine.authenticate(token);
    if (caller) return caller;
    const message =
      token === null
        ? 'missing bearer token: send "Authorization: Bearer <token>" (the operator token file is printed by "commonroom serve"; agents get theirs from "ce participant add")'
        : 'invalid or revoked bearer token: ask the operator for a current one ("ce participant add")';
    const headers = { 'WWW-Authenticate': 'Bearer realm="commonroom"' };
    if (rpc) sendRpcError(res, HTTP_STATUS.UNAUTHENTICATED, RPC.unauthenticated, message, headers);
    else sendJson(res, HTTP_STATUS.UNAUTHENTICATED, apiErrorBody('UNAUTHENTICATED', message), headers);
    return null;
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const host = req.headers.host;
    // an agent started on a host reaches this endpoint through a forward of the person's SSH connection, from
    // 127.0.0.1:PORT there: that Host is accepted while the forward stands, for that run's participant only
    const forwardedFor = typeof host === 'string' && !this.allowedHosts.has(host.toLowerCase()) ? (this.engine.forwardedHost?.(host.toLowerCase()) ?? null) : null;
    if (typeof host !== 'string' || (!this.allowedHosts.has(host.toLowerCase()) && forwardedFor === null)) {
      return sendRpcError(res, 403, RPC.transportRefused, `forbidden Host header ${JSON.stringify(host ?? '')}: connect to ${[...this.allowedHosts][0] ?? ''}`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.has(origin.toLowerCase())) {
      return sendRpcError(res, 403, RPC.transportRefused, `forbidden Origin ${JSON.stringify(origin)}: only the Commonroom app itself may call from a browser`);
    }
    if (!(req.url ?? '/').startsWith('/')) {
      return sendRpcError(res, 400, RPC.invalidRequest, 'the request target must be a path (like /mcp), not an absolute URL or "*"');
    }
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (this.ui?.files && (pathname === '/ui' || pathname.startsWith('/ui/'))) {
      if (pathname === UI_SOCKET_PATH) return sendJson(res, 426, { error: { code: 'INVALID_INPUT', message: 'this is a WebSocket: connect with ws://' } }, { Upgrade: 'websocket' });
      return this.ui.files.handle(req, res);
    }
    const isMcp = pathname === '/mcp';
    const isApi = pathname.startsWith('/api/');
    const isWorkspaceTask = pathname === WORKSPACE_TASK_PATH;
    const isOtlp = OtlpDoor.handles(pathname);
    if (!isMcp && !isApi && !isWorkspaceTask && !isOtlp) {
      // a person's browser gets words (or the UI), never a JSON body; programs get JSON as before
      if (wantsHtml(req)) {
        if (pathname === '/' && this.ui?.files) {
          res.writeHead(303, { Location: UI_PATH, 'Cache-Control': 'no-store' });
          res.end();
          return;
        }
        return sendPage(res, pathname === '/' ? 200 : 404, {
          title: pathname === '/' ? 'a room for AI agents' : 'no such page',
          text:
            pathname === '/'
              ? 'This is a Commonroom room. Agents connect to /mcp with a bearer token. To watch it in a browser, run "commonroom serve" and open the sign-in link it prints, or get one with "ce ui-link".'
              : `There is no page at ${pathname}. Agents connect to /mcp; the browser UI is at /ui/ (sign in with the link "ce ui-link" prints).`,
          ...(this.ui?.files ? { link: { href: UI_PATH, label: 'Open the browser UI' } } : {}),
        });
      }
      if (pathname === '/' && req.method === 'GET') {
        return sendJson(res, 200, { name: 'commonroom', mcp: '/mcp', note: 'send requests to /mcp with a bearer token' });
      }
      return sendJson(res, 404, apiErrorBody('NOT_FOUND', `no such path ${pathname}: the MCP endpoint is /mcp`));
    }
    const caller = this.authenticate(req, res, isMcp);
    if (!caller) return;
    if (forwardedFor !== null && caller.name !== forwardedFor) {
      const message = `forbidden Host header ${JSON.stringify(host)}: that forward is for ${forwardedFor}'s run only`;
      if (isMcp) return sendRpcError(res, 403, RPC.transportRefused, message);
      return sendJson(res, 403, apiErrorBody('FORBIDDEN', message));
    }
    const refused = this.budget.claim(req.socket, caller.name, caller.role === 'operator');
    if (refused) {
      // its body is still coming: drain it and close only once it is read, or the close resets the answer away
      req.resume();
      lingerBeforeClose(req.socket);
      if (isMcp) return sendRpcError(res, 503, RPC.transportRefused, refused, { Connection: 'close' });
      return sendJson(res, 503, apiErrorBody('LIMIT_EXCEEDED', refused), { Connection: 'close' });
    }
    if (isWorkspaceTask) return this.api.handleWorkspaceTask(req, res, caller);

    let body: unknown;
    if (req.method === 'POST') {
      let raw: Buffer;
      try {
        raw = await readBody(req, this.options.maxBodyBytes, this.options.bodyTimeoutMs);
      } catch (error) {
        if (error instanceof BodyTooSlow) {
          const message = `the request body did not arrive within ${this.options.bodyTimeoutMs} ms: send it at once`;
          if (isMcp) return sendRpcError(res, 408, RPC.invalidRequest, message, { Connection: 'close' });
          return sendJson(res, 408, apiErrorBody('INVALID_INPUT', message), { Connection: 'close' });
        }
        if (!(error instanceof BodyTooLarge)) throw error;
        const message = `request body larger than ${this.options.maxBodyBytes} bytes: send less per request`;
        req.resume(); // drain what the client is still sending, then answer
        lingerBeforeClose(req.socket);
        if (isMcp) return sendRpcError(res, 413, RPC.invalidRequest, message, { Connection: 'close' });
        return sendJson(res, 413, apiErrorBody('LIMIT_EXCEEDED', message), { Connection: 'close' });
      }
      // OTLP bodies are protobuf (or OTLP JSON, decoded by its own door): never parsed as a call's JSON
      const otlpJson = isOtlp && String(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
      if (isOtlp && !(otlpJson && nestsDeeperThan(raw.toString('utf8'), this.options.maxJsonDepth))) return this.otlp.handle(req, res, caller, pathname, raw);
      const text = raw.toString('utf8');
      if (nestsDeeperThan(text, this.options.maxJsonDepth)) {
        const message = `the request body is JSON nested deeper than ${this.options.maxJsonDepth} levels: flatten it`;
        if (isMcp) return sendRpcError(res, 400, RPC.invalidRequest, message);
        return sendJson(res, HTTP_STATUS.INVALID_INPUT, apiErrorBody('INVALID_INPUT', message));
      }
      try {
        body = JSON.parse(text);
      } catch {
        if (isMcp) return sendRpcError(res, 400, RPC.parseError, 'parse error: the request body is not valid JSON');
        return sendJson(res, HTTP_STATUS.INVALID_INPUT, apiErrorBody('INVALID_INPUT', 'the request body is not valid JSON'));
      }
    }
    if (isMcp) return this.mcp.handle(req, res, caller, body);
    if (isOtlp) return this.otlp.handle(req, res, caller, pathname, Buffer.alloc(0));
    return this.api.handle(req, res, caller, pathname.slice('/api/'.length), body);
  }
}
