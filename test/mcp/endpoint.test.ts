import fs from 'node:fs';
import http from 'node:http';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_SCHEMA } from '../../src-main/engine/store/migrations';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, type TestHome } from '../helpers/env';

let home: TestHome;
let running: RunningRoom;
let operatorToken: string;

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths, limits: { maxLegacySessions: 4 } });
  operatorToken = fs.readFileSync(running.tokenFile, 'utf8').trim();
});
afterAll(async () => {
  await running.close();
  home.cleanup();
});

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A raw HTTP request, so Host and bodies can be anything a hostile client could send. */
function raw(options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string }) {
  const url = running.mcpUrl;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: options.path ?? url.pathname, method: options.method ?? 'POST', headers: options.headers },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function parseStructured(result: unknown): Record<string, unknown> {
  return (result as { structuredContent: Record<string, unknown> }).structuredContent;
}

describe('MCP endpoint through real SDK clients', () => {
  it('a v2 SDK client on 2026-07-28 calls room_info', async () => {
    const client = new ClientV2({ name: 'v2-modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(running.mcpUrl, { requestInit: { headers: auth(operatorToken) } }));
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('room_info');
    const result = await client.callTool({ name: 'room_info', arguments: {} });
    const info = parseStructured(result);
    expect(info.schemaVersion).toBe(LATEST_SCHEMA);
    expect(info.runnerVersion).toBe('0.1.0');
    expect((info.room as { markdownPath: string }).markdownPath).toBe(running.engine.room.location.markdownPath);
    expect((info.counts as { participants: number }).participants).toBeGreaterThanOrEqual(1);
    await client.close();
  });

  it('a v1 SDK client on 2025-11-25 calls room_info in a session', async () => {
    const transport = new TransportV1(running.mcpUrl, { requestInit: { headers: auth(operatorToken) } });
    const client = new ClientV1({ name: 'v1-legacy', version: '1' });
    await client.connect(transport);
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]{20,}$/);
    const result = await client.callTool({ name: 'room_info', arguments: {} });
    expect(parseStructured(result).schemaVersion).toBe(LATEST_SCHEMA);
    await client.close();
  });

  it('a v2 SDK client pinned to the legacy era calls room_info too', async () => {
    const client = new ClientV2({ name: 'v2-legacy', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(new TransportV2(running.mcpUrl, { requestInit: { headers: auth(operatorToken) } }));
    expect(client.getProtocolEra()).toBe('legacy');
    const result = await client.callTool({ name: 'room_info', arguments: {} });
    expect(parseStructured(result).schemaVersion).toBe(LATEST_SCHEMA);
    await client.close();
  });

  it('refuses bad tool arguments as a tool error the model can read, and unknown tools as invalid params', async () => {
    const client = new ClientV1({ name: 'v1', version: '1' });
    await client.connect(new TransportV1(running.mcpUrl, { requestInit: { headers: auth(operatorToken) } }));
    const bad = await client.callTool({ name: 'room_info', arguments: { surprise: 1 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/INVALID_INPUT: invalid arguments for room_info/);
    await expect(client.callTool({ name: 'participant_add', arguments: {} })).rejects.toThrow(/unknown tool/);
    await client.close();
  });
});

describe('MCP endpoint refusals (every one a JSON body)', () => {
  it('no token → 401 JSON', async () => {
    const r = await raw({ headers: jsonHeaders, body: JSON.stringify(INIT) });
    expect(r.status).toBe(401);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    expect(JSON.parse(r.text).error.message).toMatch(/missing bearer token/);
  });

  it('wrong token → 401 JSON', async () => {
    const r = await raw({ headers: { ...jsonHeaders, ...auth(`cr_${'A'.repeat(43)}`) }, body: JSON.stringify(INIT) });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.text).error.message).toMatch(/invalid or revoked/);
  });

  it('Host: evil.example → 403 JSON, even with a valid token', async () => {
    const r = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken), Host: 'evil.example' }, body: JSON.stringify(INIT) });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.text).error.message).toMatch(/Host/);
  });

  it('a Host with the right name but another port → 403', async () => {
    const r = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken), Host: '127.0.0.1:1' }, body: JSON.stringify(INIT) });
    expect(r.status).toBe(403);
  });

  it('Origin: http://evil.example → 403 JSON; another localhost port and "null" too', async () => {
    for (const origin of ['http://evil.example', `http://localhost:1`, 'null']) {
      const r = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken), Origin: origin }, body: JSON.stringify(INIT) });
      expect(r.status, origin).toBe(403);
      expect(JSON.parse(r.text).error.message).toMatch(/Origin/);
    }
  });

  it("the app's own origin is let through", async () => {
    const origin = `http://127.0.0.1:${running.mcpUrl.port}`;
    const r = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken), Origin: origin }, body: JSON.stringify(INIT) });
    expect(r.status).toBe(200);
    await raw({ method: 'DELETE', headers: { ...auth(operatorToken), 'mcp-session-id': String(r.headers['mcp-session-id']) } });
  });

  it('a 10 MiB body → 413 JSON', async () => {
    const body = Buffer.alloc(10 * 1024 * 1024, 0x20);
    const r = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken), 'content-length': String(body.length) }, body });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text).error.message).toMatch(/larger than/);
  });

  it('malformed JSON → a JSON-RPC parse error in JSON', async () => {
    const r = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken) }, body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    const body = JSON.parse(r.text);
    expect(body.error.code).toBe(-32700);
    expect(r.text).not.toMatch(/at .*\.js:\d+/);
  });

  it('an unknown session id → 404 JSON; a missing one on a non-initialize request → 400 JSON', async () => {
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const unknown = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken), 'mcp-session-id': 'nope' }, body: list });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).error.message).toMatch(/session not found/);
    const missing = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken), 'mcp-protocol-version': '2025-11-25' }, body: list });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text).error).toBeDefined();
  });

  it('other paths answer 404 JSON, not HTML', async () => {
    const r = await raw({ method: 'GET', path: '/nothing-here', headers: {} });
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toMatch(/application\/json/);
  });
});

describe('participants and sessions', () => {
  it('a session is bound to the participant that opened it', async () => {
    const added = await running.engine.call(running.engine.operator(), 'participant_add', { name: 'intruder', capabilities: ['read'] });
    const opened = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken) }, body: JSON.stringify(INIT) });
    const sid = String(opened.headers['mcp-session-id']);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const r = await raw({
      headers: { ...jsonHeaders, ...auth(added.token), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      body: list,
    });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.text).error.message).toMatch(/another participant/);
    await raw({ method: 'DELETE', headers: { ...auth(operatorToken), 'mcp-session-id': sid } });
  });

  it('an agent token works until it is revoked, then gets 401', async () => {
    const engine = running.engine;
    const added = await engine.call(engine.operator(), 'participant_add', { name: 'agent-revoked', capabilities: ['read', 'write'] });
    const client = new ClientV1({ name: 'agent', version: '1' });
    await client.connect(new TransportV1(running.mcpUrl, { requestInit: { headers: auth(added.token) } }));
    expect(parseStructured(await client.callTool({ name: 'room_info', arguments: {} })).schemaVersion).toBe(LATEST_SCHEMA);
    await engine.call(engine.operator(), 'participant_revoke', { name: 'agent-revoked' });
    await expect(client.callTool({ name: 'room_info', arguments: {} })).rejects.toThrow();
    const r = await raw({ headers: { ...jsonHeaders, ...auth(added.token) }, body: JSON.stringify(INIT) });
    expect(r.status).toBe(401);
  });

  it('a participant without "read" is not offered room_info', async () => {
    const engine = running.engine;
    const added = await engine.call(engine.operator(), 'participant_add', { name: 'writer-only', capabilities: ['write'] });
    const client = new ClientV2({ name: 'w', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(running.mcpUrl, { requestInit: { headers: auth(added.token) } }));
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('room_info');
    await expect(client.callTool({ name: 'room_info', arguments: {} })).rejects.toThrow(/unknown tool/);
    await client.close();
  });

  it('caps legacy sessions: at the cap an idle one makes room; with every one busy the next initialize is refused clearly', async () => {
    const sessions: string[] = [];
    const streams: AbortController[] = [];
    const busy = async (sid: string) => {
      // a GET stream open keeps a session busy (the SDK clients hold one)
      const stream = new AbortController();
      streams.push(stream);
      const res = await fetch(running.mcpUrl, { method: 'GET', headers: { accept: 'text/event-stream', ...auth(operatorToken), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, signal: stream.signal });
      expect(res.status).toBe(200);
    };
    try {
      let refused: { status: number; text: string } | undefined;
      for (let i = 0; i < 8 && !refused; i++) {
        const r = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken) }, body: JSON.stringify(INIT) });
        if (r.status !== 200) refused = r;
        else {
          const sid = String(r.headers['mcp-session-id']);
          sessions.push(sid);
          await raw({ headers: { ...jsonHeaders, ...auth(operatorToken), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
          await busy(sid);
        }
      }
      expect(sessions.length).toBeLessThanOrEqual(4);
      expect(refused?.status).toBe(503);
      expect(JSON.parse(refused?.text ?? '{}').error.message).toMatch(/too many open MCP sessions \(4\), every one busy/);
    } finally {
      for (const s of streams) s.abort();
    }
    // the streams ended: the sessions are idle, so a new initialize closes the idlest instead of being refused
    await new Promise((r) => setTimeout(r, 100));
    const again = await raw({ headers: { ...jsonHeaders, ...auth(operatorToken) }, body: JSON.stringify(INIT) });
    expect(again.status).toBe(200);
    for (const sid of [...sessions, String(again.headers['mcp-session-id'])]) await raw({ method: 'DELETE', headers: { ...auth(operatorToken), 'mcp-session-id': sid } });
  });
});

describe('idle legacy sessions', () => {
  it('expire: the session id then answers 404', async () => {
    const idleHome = makeHome();
    const idle = await startRunner({ port: 0, paths: idleHome.paths, limits: { legacySessionIdleMs: 300 } });
    try {
      const token = fs.readFileSync(idle.tokenFile, 'utf8').trim();
      const post = (headers: Record<string, string>, body: unknown) =>
        fetch(idle.mcpUrl, { method: 'POST', headers: { ...jsonHeaders, ...auth(token), ...headers }, body: JSON.stringify(body) });
      const opened = await post({}, INIT);
      const sid = opened.headers.get('mcp-session-id') ?? '';
      await opened.text();
      expect(idle.engine.room.location.markdownPath).toBeTruthy();
      await new Promise((r) => setTimeout(r, 1_500));
      const after = await post({ 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} });
      expect(after.status).toBe(404);
    } finally {
      await idle.close();
      idleHome.cleanup();
    }
  });
});

describe('2026-07-28 requests', () => {
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

  it('server/discover advertises the version and tools', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: envelope } });
    const r = await raw({
      headers: { ...jsonHeaders, ...auth(operatorToken), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      body,
    });
    expect(r.status).toBe(200);
    const result = JSON.parse(r.text).result;
    expect(result.supportedVersions).toContain('2026-07-28');
    expect(result.capabilities.tools).toBeDefined();
  });

  it('a header that disagrees with the body is refused with -32020', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'h', method: 'tools/list', params: { _meta: envelope } });
    const r = await raw({
      headers: { ...jsonHeaders, ...auth(operatorToken), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' },
      body,
    });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error.code).toBe(-32020);
  });
});

describe('per-participant session share', () => {
  it('one participant cannot take every legacy session place', async () => {
    const h = makeHome();
    const r = await startRunner({ port: 0, paths: h.paths, limits: { maxLegacySessions: 10, maxLegacySessionsPerParticipant: 2 } });
    try {
      const op = fs.readFileSync(r.tokenFile, 'utf8').trim();
      const agent = (await r.engine.call(r.engine.operator(), 'participant_add', { name: 'sharer', capabilities: ['read'] })).token;
      const init = (t: string) =>
        fetch(r.mcpUrl, { method: 'POST', headers: { ...jsonHeaders, ...auth(t) }, body: JSON.stringify(INIT) }).then(async (res) => ({ status: res.status, text: await res.text() }));
      // the operator's two sessions, each kept busy by a stream
      const streams: AbortController[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await fetch(r.mcpUrl, { method: 'POST', headers: { ...jsonHeaders, ...auth(op) }, body: JSON.stringify(INIT) });
        expect(res.status).toBe(200);
        const sid = res.headers.get('mcp-session-id') ?? '';
        await res.text();
        const stream = new AbortController();
        streams.push(stream);
        await fetch(r.mcpUrl, { method: 'GET', headers: { accept: 'text/event-stream', ...auth(op), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, signal: stream.signal });
      }
      const third = await init(op);
      expect(third.status).toBe(503);
      expect(third.text).toContain('operator already has 2 open MCP sessions, every one busy');
      expect((await init(agent)).status).toBe(200);
      for (const s of streams) s.abort();
    } finally {
      await r.close();
      h.cleanup();
    }
  });
});

describe('idle legacy sessions in use', () => {
  it('are not expired while a request is still open (a GET stream)', async () => {
    const h = makeHome();
    const r = await startRunner({ port: 0, paths: h.paths, limits: { legacySessionIdleMs: 300 } });
    try {
      const t = fs.readFileSync(r.tokenFile, 'utf8').trim();
      const opened = await fetch(r.mcpUrl, { method: 'POST', headers: { ...jsonHeaders, ...auth(t) }, body: JSON.stringify(INIT) });
      const sid = opened.headers.get('mcp-session-id') ?? '';
      await opened.text();
      const sessionHeaders = { ...auth(t), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
      await fetch(r.mcpUrl, { method: 'POST', headers: { ...jsonHeaders, ...sessionHeaders }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }).then((x) => x.text());
      const stream = new AbortController();
      const get = await fetch(r.mcpUrl, { method: 'GET', headers: { accept: 'text/event-stream', ...sessionHeaders }, signal: stream.signal });
      expect(get.status).toBe(200);
      await new Promise((res) => setTimeout(res, 1_500));
      const alive = await fetch(r.mcpUrl, { method: 'POST', headers: { ...jsonHeaders, ...sessionHeaders }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }) });
      expect(alive.status).toBe(200);
      await alive.text();
      stream.abort();
    } finally {
      await r.close();
      h.cleanup();
    }
  });
});
