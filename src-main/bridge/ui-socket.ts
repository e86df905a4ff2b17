import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { createRequire } from 'node:module';
import type { WebSocketServer, WebSocket } from 'ws';
import { UI_SIGNED_OUT_CLOSE, UI_SOCKET_PROTOCOL, type ServerMessage } from '../common/ui-protocol';
import { encodeShellFrame } from '../common/ui-shell-frame';
import type { DoorEngine } from '../engine/index';
import { socketSecretOf } from './ui-auth';
import { nestsDeeperThan } from '../net/json-depth';
import { LIMITS } from '../common/limits';
import { UiSession } from './ui-session';

export interface UiSocketOptions {
  /** The MCP endpoint (known once the server listens). */
  mcpUrl: () => string;
  /** Largest message a browser may send (a call's arguments). */
  maxMessageBytes: number;
  /**
   * Most bytes queued for a browser that does not read: past it the connection is closed (the UI reconnects
   * and re-reads state; events are hints). Shell output never gets near it (acknowledgements pace it).
   */
  maxQueuedBytes?: number;
  /** Deepest JSON nesting a message may have (the HTTP doors' limit). */
  maxJsonDepth?: number;
}

/**
 * A committed event's message as UTF-8 JSON, made once for all the UI sockets it goes to: the bus hands every
 * session the same event object, and each wraps it alike ({t: 'event', event}). With 100 pages open that was 100
 * serialisations and 100 encodings of every event.
 */
const eventBytes = new WeakMap<object, Buffer>();
function textOf(message: Exclude<ServerMessage, { t: 'shell.data' }>): Buffer | string {
  if (message.t !== 'event') return JSON.stringify(message);
  let bytes = eventBytes.get(message.event);
  if (!bytes) {
    bytes = Buffer.from(JSON.stringify(message));
    eventBytes.set(message.event, bytes);
  }
  return bytes;
}

/** Writes a plain HTTP refusal on a socket that asked to upgrade, then closes it. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string, message: string): void {
  const body = JSON.stringify({ error: { code: status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN', message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The browser UI's WebSocket (UI_SOCKET_PATH): JSON messages of common/ui-protocol.ts (shell output binary, see
 * common/ui-shell-frame.ts), one UiSession per socket.
 * The front door has already checked Host and Origin; this checks the page's sign-in: its session secret
 * offered as a `commonroom.auth.<secret>` subprotocol (engine/people/sign-ins.ts). A session signed out closes its
 * sockets with UI_SIGNED_OUT_CLOSE.
 */
export class UiSocketDoor {
  /** Made on the first upgrade: `ws` is loaded then, not while the room process starts (~120 ms of modules). */
  private wss: WebSocketServer | undefined;
  private readonly maxQueued: number;
  private readonly maxDepth: number;

  constructor(
    private readonly engine: DoorEngine,
    private readonly options: UiSocketOptions,
  ) {
    this.maxQueued = options.maxQueuedBytes ?? 16 * 1024 * 1024;
    this.maxDepth = options.maxJsonDepth ?? LIMITS.maxJsonDepth;
  }

  private server(): WebSocketServer {
    if (!this.wss) {
      const { WebSocketServer: Server } = createRequire(import.meta.url)('ws') as typeof import('ws');
      this.wss = new Server({
        noServer: true,
        maxPayload: this.options.maxMessageBytes,
        perMessageDeflate: false,
        clientTracking: true,
        // the page offers the UI's protocol and its secret as a second one: only the first is ever echoed back
        handleProtocols: (protocols) => (protocols.has(UI_SOCKET_PROTOCOL) ? UI_SOCKET_PROTOCOL : false),
      });
    }
    return this.wss;
  }

  /**
   * `operatorByToken`: the front door already authenticated a local program (`ce shell attach`, no Origin)
   * by the operator's bearer token, so no sign-in is needed.
   */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, operatorByToken = false, signedIn?: () => void): void {
    let sessionId: string | null = null;
    if (!operatorByToken) {
      sessionId = this.engine.uiSessions.verify(socketSecretOf(req));
      if (!sessionId) {
        return refuseUpgrade(socket, 401, 'Unauthorized', 'not signed in to this room\'s UI: open a sign-in link ("ce ui-link", or the one "commonroom serve" printed)');
      }
      signedIn?.();
    }
    this.server().handleUpgrade(req, socket, head, (ws) => this.accept(ws, sessionId));
  }

  private accept(ws: WebSocket, sessionId: string | null): void {
    const detach = sessionId === null ? () => undefined : this.engine.uiSessions.attach(sessionId, () => ws.close(UI_SIGNED_OUT_CLOSE, 'signed out'));
    ws.on('close', detach);
    const send = (message: ServerMessage, sent?: () => void) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > this.maxQueued) {
        ws.close(1013, 'the UI is not reading its messages: reconnect');
        return;
      }
      // shell output as binary (no base64, no JSON around megabytes); everything else as JSON text. A frame's
      // buffer is handed back only once written: a failed write may still be referenced, so it is left to the GC
      if (message.t === 'shell.data') ws.send(encodeShellFrame(message), sent && ((error) => error || sent()));
      else ws.send(textOf(message), { binary: false });
    };
    const session = new UiSession(this.engine, send, { mcpUrl: this.options.mcpUrl() });
    ws.on('message', (data, isBinary) => {
      let message: unknown;
      try {
        if (isBinary) throw new Error('binary');
        const text = data.toString();
        // as deep as an HTTP body may be, checked before parsing (a 200k-deep value must not reach a schema)
        if (nestsDeeperThan(text, this.maxDepth)) {
          ws.close(1009, `a UI message may nest JSON at most ${this.maxDepth} levels deep`);
          return;
        }
        message = JSON.parse(text);
      } catch {
        ws.close(1007, 'UI messages are JSON text (see common/ui-protocol.ts)');
        return;
      }
      const problem = session.handle(message);
      if (problem) ws.close(1008, problem.slice(0, 120));
    });
    ws.on('close', () => session.close());
    ws.on('error', () => session.close());
    try {
      session.open();
    } catch (error) {
      console.error('[ui] could not open a UI session:', error);
      ws.close(1011, 'the room is closing');
    }
  }

  /** Closes every UI connection (the room process is stopping). */
  async close(): Promise<void> {
    const wss = this.wss;
    if (!wss) return;
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
}
