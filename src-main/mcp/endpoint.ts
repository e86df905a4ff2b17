import type http from 'node:http';
import { createMcpHandler, type McpRequestContext } from '@modelcontextprotocol/server';
import type { Caller } from '../common/dto';
import type { DoorEngine } from '../engine/index';
import { sendRpcError } from '../net/http-json';
import { LegacySessions, type LegacyLimits } from './eras/sessions-2025';
import { cancelListen, handleListen } from './eras/listen-2026';
import { missingCapability } from './surface/method-capabilities';
import { buildMcpServer } from './surface/tools';
import { callNameOf } from './transport/call-name';
import { RPC } from './transport/rpc-errors';
import { isLegacyPost } from './transport/era';
import { serveParsed } from './eras/requests-2026';

export interface McpEndpointOptions extends LegacyLimits {
  maxBodyBytes: number;
  /** Milliseconds of the clock idle sessions are measured on (tests move it; default Date.now). */
  now?: () => number;
}

function callerFrom(ctx: McpRequestContext): Caller {
  const caller = ctx.authInfo?.extra?.caller as Caller | undefined;
  // the front door authenticates every request before the SDK sees it; reaching here without a caller is a bug
  if (!caller) throw new Error('modern MCP request without an authenticated caller');
  return caller;
}

/** A 2026 notifications/cancelled (no session) for one of the caller's listen streams: ends that stream. */
function cancelsListen(req: http.IncomingMessage, body: unknown, caller: Caller): boolean {
  if (req.headers['mcp-session-id'] !== undefined) return false;
  const message = body as { method?: unknown; id?: unknown; params?: { requestId?: unknown } } | undefined;
  if (message?.method !== 'notifications/cancelled' || message.id !== undefined) return false;
  const requestId = message.params?.requestId;
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return false;
  return cancelListen(caller.name, requestId);
}

/**
 * /mcp for both eras on one URL. The SDK's own classifier routes each request: 2025-era traffic (initialize,
 * session ids, GET/DELETE) goes to sessionful legacy serving; 2026-07-28 traffic (per-request _meta envelope,
 * server/discover, header checks) goes to createMcpHandler with a fresh server per request.
 */
export class McpEndpoint {
  readonly legacy: LegacySessions;
  private readonly modern: ReturnType<typeof createMcpHandler>;

  constructor(
    private readonly engine: DoorEngine,
    options: McpEndpointOptions,
  ) {
    this.legacy = new LegacySessions(engine, options, options.now);
    this.modern = createMcpHandler((ctx) => buildMcpServer(this.engine, callerFrom(ctx), 'modern', options.extraTools), {
      legacy: 'reject',
      maxRequestBodySize: options.maxBodyBytes,
      onerror: (error) => {
        if (process.env.COMMONROOM_DEBUG) console.error('[mcp] modern:', error.message);
      },
    });
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse, caller: Caller, body?: unknown): Promise<void> {
    if (req.method === 'GET' || req.method === 'DELETE') return this.legacy.handle(req, res, caller);
    if (req.method !== 'POST') {
      return sendRpcError(res, 405, RPC.transportRefused, `method ${req.method ?? ''} not allowed on /mcp: use POST (GET and DELETE for 2025 sessions)`, {
        Allow: 'GET, POST, DELETE',
      });
    }
    const called = callNameOf(body);
    if (called) this.engine.presence.called(caller.name, called);
    if (cancelsListen(req, body, caller)) {
      res.writeHead(202).end();
      return;
    }
    if (isLegacyPost(req, body)) return this.legacy.handle(req, res, caller, body);
    if ((body as { method?: unknown } | undefined)?.method === 'subscriptions/listen') {
      const refusal = missingCapability(caller, 'subscriptions/listen');
      if (refusal) return sendRpcError(res, 403, refusal.code, refusal.message, {}, (body as { id?: string | number }).id ?? null);
      return handleListen(this.engine, caller, req, res, body as Parameters<typeof handleListen>[4]);
    }
    return serveParsed(this.modern.fetch, req, res, body, { token: 'verified', clientId: caller.name, scopes: [...caller.capabilities], extra: { caller } });
  }

  async close(): Promise<void> {
    await this.legacy.closeAll();
    await this.modern.close();
  }
}
