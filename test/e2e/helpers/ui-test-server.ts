/**
 * TEST ONLY: a stand-in for the real UI door (branch ui-door) so the renderer can be driven in Chromium before
 * the two halves are merged. It speaks common/ui-protocol.ts over `ws` against a real Engine, serves the built
 * renderer (out/renderer) under /ui/, and has NO authentication: never use it outside tests. At merge the e2e
 * tests switch to `commonroom serve`'s own door by changing openUi() in ./open-ui.ts.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ClientMessage, ServerMessage } from '../../../src-main/common/ui-protocol';
import { UI_PATH, UI_SESSION_PATH, UI_SOCKET_PATH } from '../../../src-main/common/ui-protocol';
import { encodeShellFrame } from '../../../src-main/common/ui-shell-frame';
import type { Engine } from '../../../src-main/engine/engine';
import type { ShellAttachment } from '../../../src-main/engine/shells/shell-registry';
import { REPO } from '../../helpers/env';

const RENDERER = path.join(REPO, 'out/renderer');
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

export interface UiTestServer {
  /** e.g. http://127.0.0.1:PORT/ui/#token=… (a sign-in link this door always accepts) */
  url: string;
  /** Drops every open socket (the page then shows "reconnecting" and comes back). */
  dropConnections(): void;
  /** While false, new sockets are refused (the page stays "reconnecting"). */
  setAccepting(accepting: boolean): void;
  close(): Promise<void>;
}

export async function startUiTestServer(engine: Engine, mcpUrl: string): Promise<UiTestServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    // the page's sign-in, without authentication: any link token is traded, any secret holds
    if (url.pathname === UI_SESSION_PATH) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sessionId: 'ui_test', secret: `cr_${'t'.repeat(43)}` }));
      return;
    }
    const rel = url.pathname === UI_PATH ? 'index.html' : url.pathname.startsWith(UI_PATH) ? url.pathname.slice(UI_PATH.length) : null;
    const file = rel === null ? null : path.resolve(RENDERER, rel);
    if (!file || !file.startsWith(RENDERER + path.sep) || !fs.existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(fs.readFileSync(file));
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  let accepting = true;
  server.on('upgrade', (req, socket, head) => {
    if (req.url !== UI_SOCKET_PATH || !accepting) return socket.destroy();
    sockets.handleUpgrade(req, socket, head, (ws) => serveSocket(ws, engine, mcpUrl));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${UI_PATH}#token=cr_${'l'.repeat(43)}`,
    dropConnections: () => sockets.clients.forEach((ws) => ws.terminate()),
    setAccepting: (value) => (accepting = value),
    close: async () => {
      sockets.clients.forEach((ws) => ws.terminate());
      await new Promise<void>((resolve) => sockets.close(() => server.close(() => resolve())));
    },
  };
}

function serveSocket(ws: WebSocket, engine: Engine, mcpUrl: string): void {
  const operator = engine.operator();
  const attached = new Map<string, ShellAttachment>();
  // as the real door: shell output as binary frames, everything else as JSON text
  const send = (m: ServerMessage) => ws.readyState === ws.OPEN && ws.send(m.t === 'shell.data' ? encodeShellFrame(m) : JSON.stringify(m));
  const unsubscribe = engine.bus.subscribe((event) => send({ t: 'event', event }));
  send({ t: 'hello', operator: operator.name, mcpUrl, room: 'e2e room', version: 'test' });

  ws.on('message', (raw) => {
    const m = JSON.parse(String(raw)) as ClientMessage;
    if (m.t === 'call') {
      engine.call(operator, m.method, m.input).then(
        (value) => send({ t: 'result', id: m.id, ok: true, value }),
        (error: { code?: string; message?: string }) => send({ t: 'result', id: m.id, ok: false, error: { code: error.code ?? 'INTERNAL', message: error.message ?? 'failed' } }),
      );
    } else if (m.t === 'shell.attach') {
      attached.get(m.shellId)?.detach();
      try {
        const shellId = m.shellId;
        attached.set(
          shellId,
          engine.shells.attach(operator, shellId, {
            onData: (bytes, cursor, truncated) => send({ t: 'shell.data', shellId, cursor, data: bytes, ...(truncated ? { truncated } : {}) }),
            onExit: (exit) => send({ t: 'shell.exit', shellId, exitCode: exit.exitCode, signal: exit.signal }),
          }, m.from ?? 0),
        );
      } catch (error) {
        send({ t: 'shell.error', shellId: m.shellId, error: { code: 'NOT_FOUND', message: (error as Error).message } });
      }
    } else if (m.t === 'shell.ack') {
      attached.get(m.shellId)?.ack(m.bytes);
    } else if (m.t === 'shell.detach') {
      attached.get(m.shellId)?.detach();
      attached.delete(m.shellId);
    }
  });
  ws.on('close', () => {
    unsubscribe();
    for (const a of attached.values()) a.detach();
  });
}
