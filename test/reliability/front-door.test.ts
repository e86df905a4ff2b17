import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNAUTHENTICATED_GRACE_MS } from '../../src-main/server/request-guards';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, type TestHome } from '../helpers/env';
import { startServe, stopServe, type ServeProcess } from '../helpers/serve';

/** Sends raw bytes on a fresh socket and resolves with everything the server sent until it closed (or `untilMs`). */
function raw(port: number, write: (socket: net.Socket) => void, untilMs = 10_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let got = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(got);
    };
    const timer = setTimeout(done, untilMs);
    socket.on('data', (d) => (got += d.toString()));
    socket.on('close', done);
    socket.on('error', done);
    socket.on('connect', () => write(socket));
  });
}

const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { error?: { code: number; message: string } };

describe('hostile requests through the real serve process', () => {
  let home: TestHome;
  let serve: ServeProcess;
  let port: number;
  beforeAll(async () => {
    home = makeHome();
    serve = await startServe(home);
    port = Number(new URL(serve.mcpUrl).port);
  }, 60_000);
  afterAll(async () => {
    if (serve) await stopServe(serve, 'SIGKILL');
    home.cleanup();
  });

  const post = (body: string) =>
    fetch(serve.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${serve.token}` },
      body,
    });

  it.each([10_000, 100_000])('JSON nested %i levels deep is a 400 with a JSON-RPC error', async (depth) => {
    const res = await post('['.repeat(depth) + ']'.repeat(depth));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/nested/);
    const inParams = await post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`);
    expect(inParams.status).toBe(400);
  });

  it('a request line with an absolute URL is a 400 with a JSON-RPC error', async () => {
    const response = await raw(port, (s) =>
      s.end(`POST http://127.0.0.1:${port}/mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${serve.token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`),
    );
    expect(statusOf(response)).toBe(400);
    expect(bodyOf(response).error?.message).toMatch(/path/);
  });

  it('a 100 MB chunked body gets the same JSON 413 as a declared one', async () => {
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${serve.token}\r\nContent-Type: application/json\r\n`;
    const declared = await raw(port, (s) => s.write(`${head}Content-Length: ${100 * 1024 * 1024}\r\n\r\n`));
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const chunked = await raw(port, (s) => {
      s.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
      let sent = 0;
      const pump = () => {
        while (sent < 100 && !s.destroyed) {
          sent++;
          if (!s.write(`${chunk.length.toString(16)}\r\n`) || !s.write(chunk) || !s.write('\r\n')) return void s.once('drain', pump);
        }
      };
      s.on('error', () => undefined);
      pump();
    });
    expect(statusOf(declared)).toBe(413);
    expect(statusOf(chunked)).toBe(413);
    expect(bodyOf(chunked)).toEqual(bodyOf(declared));
  }, 30_000);

  it('none of this wrote a stack trace to the log', () => {
    expect(serve.output()).not.toMatch(/^\s+at .+(:\d+:\d+|\(native\))/m);
    expect(serve.output()).not.toMatch(/RangeError|Maximum call stack/);
  });
});

describe('socket deadlines and caps', () => {
  let home: TestHome;
  let running: RunningRoom;
  let port: number;
  let token: string;
  beforeAll(async () => {
    home = makeHome();
    running = await startRunner({ port: 0, paths: home.paths, limits: { bodyTimeoutMs: 500, maxUnauthenticatedConnections: 4, maxConnections: 8, reservedOperatorConnections: 2 } });
    port = Number(running.baseUrl.port);
    token = (await running.engine.call(running.engine.operator(), 'participant_add', { name: 'slow', capabilities: ['read'] })).token;
  });
  afterAll(async () => {
    await running.close();
    home.cleanup();
  });

  it('an authenticated body that stalls is answered 408 and its socket closed', async () => {
    const response = await raw(port, (s) =>
      s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`),
    );
    expect(statusOf(response)).toBe(408);
    expect(bodyOf(response).error?.message).toMatch(/body/);
  });

  it('unauthenticated sockets past their budget: a new client still gets in, and the quiet longest are closed once they had time to speak', async () => {
    const held: net.Socket[] = [];
    const closed: boolean[] = [];
    const open = async () => {
      const s = net.connect({ host: '127.0.0.1', port });
      await new Promise((r) => s.once('connect', r));
      const at = held.length;
      closed.push(false);
      s.on('close', () => (closed[at] = true));
      held.push(s);
    };
    try {
      for (let i = 0; i < 6; i++) await open();
      // over the budget of 4, a new client is answered at once; none was closed while it may still be sending
      const answered = await raw(port, (s) => s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`), 3000);
      expect(statusOf(answered)).toBe(200);
      expect(closed.some(Boolean)).toBe(false);
      // once they had their time to send a request and sent none, the next socket makes the room: the three
      // quiet longest are closed, and the budget holds again
      await new Promise((r) => setTimeout(r, UNAUTHENTICATED_GRACE_MS + 200));
      await open();
      await expect.poll(() => closed.slice(0, 3).every(Boolean)).toBe(true);
      expect(closed.slice(3).some(Boolean)).toBe(false);
    } finally {
      for (const s of held) s.destroy();
    }
  });

  it('agents past the share they may hold together get a JSON 503 that says so; the operator still gets in', async () => {
    const { engine } = running;
    const agentToken = (await engine.call(engine.operator(), 'participant_add', { name: 'many', capabilities: ['read'] })).token;
    // agents may hold total - reserved - unauthenticated = 2 sockets; the operator more
    const claimed: net.Socket[] = [];
    const claim = async (bearer: string) => {
      const s = net.connect({ host: '127.0.0.1', port });
      await new Promise((r) => s.once('connect', r));
      const answer = new Promise<string>((resolve) => s.once('data', (d) => resolve(d.toString())));
      s.write(`POST /api/room_info HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${bearer}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
      claimed.push(s);
      return statusOf(await answer);
    };
    try {
      expect(await claim(agentToken)).toBe(200);
      expect(await claim(agentToken)).toBe(200);
      expect(await claim(agentToken)).toBe(503);
      // the operator still gets in
      const operatorToken = fs.readFileSync(running.tokenFile, 'utf8').trim();
      for (let i = 0; i < 5; i++) expect(await claim(operatorToken)).toBe(200);
    } finally {
      for (const s of claimed) s.destroy();
    }
  });
});
