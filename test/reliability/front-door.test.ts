import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    running = await startRunner({ port: 0, paths: home.paths, limits: { bodyTimeoutMs: 500, maxConnectionsPerAddress: 4, maxConnections: 8 } });
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

  it('connections from one address beyond the cap are refused with a JSON 503, and the others still work', async () => {
    const held: net.Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const s = net.connect({ host: '127.0.0.1', port });
      await new Promise((r) => s.once('connect', r));
      held.push(s);
    }
    try {
      const refused = await raw(port, (s) => s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`), 3000);
      expect(statusOf(refused)).toBe(503);
      expect(bodyOf(refused).error?.message).toMatch(/connections/);
    } finally {
      for (const s of held) s.destroy();
    }
    // the places free up once those sockets close
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = statusOf(await raw(port, (s) => s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`), 3000));
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
  });
});
