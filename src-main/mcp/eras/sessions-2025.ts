import type http from 'node:http';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Caller } from '../../common/dto';
import type { DoorEngine } from '../../engine/index';
import { BoundedEventStore } from './event-store-2025';
import { sendRpcError } from '../../net/http-json';
import { buildMcpServer } from '../surface/tools';
import type { ExtraTool } from '../surface/extra-tools';
import { RPC } from '../transport/rpc-errors';
import { sendSseAtOnce } from '../transport/sse-at-once';
import { SessionSplices } from '../splices/session-splices';
import { controlsToSpaces } from '../../common/ansi';

/**
 * The SDK's Node transport for 2025 sessions (with @hono/node-server under it), loaded when the first 2025
 * client initializes: ~15 ms of module loading a room whose clients all speak 2026 never pays, and a room's
 * first answer does not wait for.
 */
let nodeAdapter: Promise<typeof import('@modelcontextprotocol/node')> | undefined;
const loadNodeAdapter = () => (nodeAdapter ??= import('@modelcontextprotocol/node'));

export interface LegacyLimits {
  maxSessions: number;
  /** One participant's share: a client that reconnects without closing must not take every place. */
  maxSessionsPerParticipant: number;
  idleMs: number;
  replayMessages: number;
  /** Tools served besides the contract's (test fixtures only; production passes none). */
  extraTools?: readonly ExtraTool[];
}

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  callerName: string;
  /** The client its initialize named ("claude-code 2.0.14"), for the refusal that names busy sessions. */
  client: string | null;
  lastSeen: number;
  /** Requests still open (a waiting tasks/result, the GET stream): a session in use is never idle. */
  inFlight: number;
  /** Its POST requests still being answered (calls; not the GET stream). */
  posts: Set<http.ServerResponse>;
  /** Its own GET stream (opened without Last-Event-ID) is open. */
  standalone: boolean;
  /** A GET stream of its own was opened once: its client keeps one open while it runs. */
  hadStream: boolean;
  /** The connections its requests came on that are still open (a client that exited leaves none). */
  sockets: Set<Socket>;
  /**
   * Ends this session's part in the participant's presence (safe to call twice); null while it has none: its
   * client dropped every connection (it exited without closing the session), until its next request.
   */
  release: (() => void) | null;
  /** Where its tool calls hold their large strings until their answers are written (session-splices.ts). */
  splices: SessionSplices;
}

/**
 * 2025-era serving (2025-03-26, 2025-06-18, 2025-11-25): initialize opens a session with its own server and
 * transport (never shared between sessions, so JSON-RPC ids of two clients cannot collide), SSE with priming
 * and Last-Event-ID replay. Sessions are bound to the participant that opened them, capped, and closed when
 * idle (no request for the idle time and none still open). Authentication still happens on every request: a session id is never a credential.
 */
export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly opening = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly engine: DoorEngine,
    private readonly limits: LegacyLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.expireIdle(), Math.min(60_000, Math.max(1_000, limits.idleMs / 4)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse, caller: Caller, body?: unknown): Promise<void> {
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const session = this.sessions.get(sid);
      if (!session) return sendRpcError(res, 404, RPC.sessionNotFound, 'session not found: it ended or expired; initialize a new one');
      if (session.callerName !== caller.name) {
        return sendRpcError(res, 403, RPC.sessionForbidden, 'this session belongs to another participant: initialize your own');
      }
      session.lastSeen = this.now();
      this.present(sid, session);
      this.engine.presence.used(caller.name, sid);
      session.inFlight++;
      if (req.method === 'POST') session.posts.add(res);
      res.once('close', () => {
        session.inFlight--;
        session.posts.delete(res);
        session.lastSeen = this.now();
      });
      if (req.method === 'GET' && req.headers['last-event-id'] === undefined) {
        // a second GET stream would be refused 409, which some clients (the SDK inside Gemini CLI 0.61) take for
        // a broken server: after every answer they resume its stream, then open a new GET, and report the 409 as
        // an MCP error on every start. 405 is the status the protocol gives for "no (further) stream here": they
        // stop quietly, and the stream already open goes on carrying the session's messages.
        if (session.standalone) {
          return sendRpcError(res, 405, RPC.transportRefused, "this session's GET stream is already open: its messages arrive there", { Allow: 'POST, DELETE' });
        }
        session.standalone = true;
        session.hadStream = true;
        res.once('close', () => (session.standalone = false));
      }
      // its client keeps its GET stream open while it runs: with that closed and nothing in flight, the client went
      // away (nearly every client exits without closing its session), so it no longer reads connected; the session
      // itself stays until it idles out, so a client that only lost its stream resumes it, and reads connected again
      res.once('close', () => this.absentIfGone(sid, session));
      this.heldOn(sid, session, req.socket);
      if (req.method === 'POST') session.splices.hold(req, res, caller, body);
      await session.transport.handleRequest(req, res, body);
      // a cancelled request gets no answer (the protocol says so), so the SDK would keep the POST stream that
      // carries it open until the client dropped it (and the session busy, never idle): it ends here instead
      const cancelled = cancelledRequestOf(body);
      if (cancelled !== undefined) session.transport.closeSSEStream(cancelled);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return sendRpcError(res, 400, RPC.transportRefused, 'missing Mcp-Session-Id header: send initialize first to open a session');
    }
    this.expireIdle();
    // nearly every client leaves its session open when it exits: at a cap, the session used longest ago that
    // is idle (nothing in flight, no stream open) makes room; its client gets "session not found" and starts over
    const mine = [...this.sessions.values()].filter((x) => x.callerName === caller.name).length + (this.opening.get(caller.name) ?? 0);
    if (mine >= this.limits.maxSessionsPerParticipant && !this.evictIdlest((s) => s.callerName === caller.name)) {
      return sendRpcError(
        res,
        503,
        RPC.transportRefused,
        `${caller.name} already has ${this.limits.maxSessionsPerParticipant} open MCP sessions, every one busy (a call in flight or a stream open): ` +
          `${busyClients([...this.sessions.values()].filter((x) => x.callerName === caller.name))}. End one (an operator: ce participant list, then ` +
          `ce participant close-session ${caller.name} SESSION), or wait for one to finish`,
        { 'Retry-After': '30' },
      );
    }
    if (this.sessions.size + this.openingTotal() >= this.limits.maxSessions && !this.evictIdlest(() => true)) {
      return sendRpcError(
        res,
        503,
        RPC.transportRefused,
        `too many open MCP sessions (${this.limits.maxSessions}), every one busy: close unused clients, or wait for a call to finish`,
        { 'Retry-After': '30' },
      );
    }
    // the place is taken before the first await, so concurrent initializes cannot pass the caps together
    this.opening.set(caller.name, (this.opening.get(caller.name) ?? 0) + 1);
    let transport: NodeStreamableHTTPServerTransport;
    try {
      transport = await this.openTransport(caller, body);
      const server = buildMcpServer(this.engine, caller, 'legacy', this.limits.extraTools);
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      this.opening.set(caller.name, (this.opening.get(caller.name) ?? 1) - 1);
    }
    // an initialize the transport refused (a wrong Accept header, say) opened no session: free what it built
    const opened = transport.sessionId ? this.sessions.get(transport.sessionId) : undefined;
    if (!transport.sessionId || !opened) return void (await transport.close().catch(() => undefined));
    this.heldOn(transport.sessionId, opened, req.socket);
  }

  /** A session's transport, which records the session once the client's initialize has been answered. */
  private async openTransport(caller: Caller, initialize: unknown): Promise<NodeStreamableHTTPServerTransport> {
    const { NodeStreamableHTTPServerTransport } = await loadNodeAdapter();
    const splices = new SessionSplices();
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      // 192 bits from the CSPRNG, visible ASCII only
      sessionIdGenerator: () => randomBytes(24).toString('base64url'),
      eventStore: new BoundedEventStore(this.limits.replayMessages),
      retryInterval: 1000,
      onsessioninitialized: (id) => {
        const session: Session = { transport, callerName: caller.name, client: clientOf(initialize), lastSeen: this.now(), inFlight: 0, posts: new Set(), standalone: false, hadStream: false, sockets: new Set(), release: null, splices };
        this.sessions.set(id, session);
        this.present(id, session);
      },
      onsessionclosed: (id) => this.forget(id),
    });
    sendSseAtOnce(transport);
    splices.attach(transport);
    transport.onclose = () => {
      if (transport.sessionId) this.forget(transport.sessionId);
    };
    return transport;
  }

  /** Closes the idle session (nothing in flight) among `which` used longest ago; false when every one is busy. */
  private evictIdlest(which: (s: Session) => boolean): boolean {
    let oldest: [string, Session] | undefined;
    for (const entry of this.sessions) {
      const [, s] = entry;
      if (!which(s) || s.inFlight > 0) continue;
      if (!oldest || s.lastSeen < oldest[1].lastSeen) oldest = entry;
    }
    if (!oldest) return false;
    void this.closeSession(oldest[0]);
    return true;
  }

  private openingTotal(): number {
    let n = 0;
    for (const v of this.opening.values()) n += v;
    return n;
  }

  /**
   * The participant was revoked (or given a new token): its sessions end, but only once the calls in flight on them have written
   * their answers (the revocation ends them with a "revoked" error at once), so no client is left waiting for
   * an answer on a stream that just closed. A call that does not end within `graceMs` is cut.
   */
  async closeFor(callerName: string, graceMs = 2000): Promise<void> {
    const ids = [...this.sessions].filter(([, s]) => s.callerName === callerName).map(([id]) => id);
    await Promise.all(
      ids.map(async (id) => {
        const posts = [...(this.sessions.get(id)?.posts ?? [])];
        const answered = Promise.all(posts.map((res) => (res.writableEnded || res.destroyed ? null : new Promise((r) => res.once('close', r)))));
        await Promise.race([answered, new Promise((r) => setTimeout(r, graceMs).unref())]);
        await this.closeSession(id);
      }),
    );
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.closeSession(id)));
  }

  private expireIdle(): void {
    const cutoff = this.now() - this.limits.idleMs;
    for (const [id, s] of this.sessions) if (s.inFlight === 0 && s.lastSeen < cutoff) void this.closeSession(id);
  }

  /** The session counts in its participant's presence (again: a request after its client had gone). */
  private present(id: string, session: Session): void {
    session.release ??= this.engine.presence.connected(session.callerName, { id, client: session.client, close: () => void this.closeSession(id) });
  }

  /**
   * Its client went away when nothing of it is in flight and either the GET stream it keeps while it runs has
   * closed, or (one that never opened it: it exited first, under load, or it only POSTs) no connection its requests
   * came on is left open: then it no longer reads connected (the session stays, until it idles out).
   */
  private absentIfGone(sid: string, session: Session): void {
    if (this.sessions.get(sid) !== session || session.standalone || session.inFlight > 0) return;
    if (session.hadStream || session.sockets.size === 0) this.absent(session);
  }

  /** Follows a connection a request of the session came on, until it closes. */
  private heldOn(sid: string, session: Session, socket: Socket): void {
    if (session.sockets.has(socket)) return;
    if (socket.destroyed) return this.absentIfGone(sid, session);
    session.sockets.add(socket);
    socket.once('close', () => {
      session.sockets.delete(socket);
      this.absentIfGone(sid, session);
    });
  }

  /** The session no longer counts in its participant's presence (it stays in the table). */
  private absent(session: Session): void {
    session.release?.();
    session.release = null;
  }

  /** The session ended: it leaves the table and the participant's presence. */
  private forget(id: string): void {
    const session = this.sessions.get(id);
    if (session) this.absent(session);
    this.sessions.delete(id);
  }

  private async closeSession(id: string): Promise<void> {
    const session = this.sessions.get(id);
    this.forget(id);
    try {
      await session?.transport.close();
    } catch {
      // closing is best effort: the session is gone either way
    }
  }
}

/** Which clients hold `sessions`, by name with their count ("claude-code 2.0.14 ×15, codex 0.5 ×1"). */
function busyClients(sessions: readonly Session[]): string {
  const counts = new Map<string, number>();
  for (const s of sessions) counts.set(s.client ?? 'an unnamed client', (counts.get(s.client ?? 'an unnamed client') ?? 0) + 1);
  return `held by ${[...counts].map(([client, n]) => `${client} ×${n}`).join(', ')}`;
}

/** The client an initialize names ("claude-code 2.0.14"), cut to 100 characters; null when it names none. */
function clientOf(initialize: unknown): string | null {
  const info = (initialize as { params?: { clientInfo?: { name?: unknown; version?: unknown } } } | null)?.params?.clientInfo;
  if (!info || typeof info.name !== 'string') return null;
  const text = typeof info.version === 'string' ? `${info.name} ${info.version}` : info.name;
  return controlsToSpaces(text).slice(0, 100);
}

/** The request id a notifications/cancelled names, if `body` is one. */
function cancelledRequestOf(body: unknown): string | number | undefined {
  const message = body as { method?: unknown; id?: unknown; params?: { requestId?: unknown } } | null;
  if (message?.method !== 'notifications/cancelled' || message.id !== undefined) return undefined;
  const id = message.params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
