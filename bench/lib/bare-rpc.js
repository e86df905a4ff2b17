#!/usr/bin/env node
// The raw JSON-RPC floor of `mcp-call`: a bare node:http server answering the same JSON-RPC over HTTP the MCP
// clients send, with no SDK on the server side — the bearer check, the body read, JSON.parse, one canned
// answer per method, JSON.stringify. Both eras' clients connect to it as to the room: `initialize` (2025: a
// session id is handed out and echoed, the standalone GET stream refused with 405 as a server without one
// does), `server/discover` (2026), `tools/call` answering the no-op tool. What any server of the protocol must
// do for one call, and nothing else. Prints one JSON line {"port":N} once it listens.
import http from 'node:http';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { Buffer } from 'node:buffer';

const expected = Buffer.from(`Bearer ${process.env.BENCH_TOKEN ?? 'bench'}`);
const authorized = (header) => {
  const got = Buffer.from(header ?? '');
  return got.length === expected.length && timingSafeEqual(got, expected);
};
const SERVER_INFO = { name: 'bare-rpc', version: '1.0.0' };
const CAPABILITIES = { tools: { listChanged: false } };
const NOOP = { name: 'noop', description: 'does nothing', inputSchema: { type: 'object' } };

/** The result of one request, by method; undefined for a method it does not know. */
function resultOf(message) {
  const params = message.params ?? {};
  switch (message.method) {
    case 'initialize':
      return { protocolVersion: params.protocolVersion ?? '2025-06-18', capabilities: CAPABILITIES, serverInfo: SERVER_INFO };
    case 'server/discover':
      return { supportedVersions: ['2026-07-28'], capabilities: CAPABILITIES, serverInfo: SERVER_INFO };
    case 'tools/list':
      return { tools: [NOOP] };
    case 'tools/call':
      return { content: [{ type: 'text', text: 'ok' }], resultType: 'complete' };
    case 'ping':
      return {};
    default:
      return undefined;
  }
}

const server = http.createServer((req, res) => {
  if (!authorized(req.headers.authorization)) return void res.writeHead(401).end();
  if (req.method === 'GET') return void res.writeHead(405, { allow: 'POST' }).end();
  if (req.method === 'DELETE') return void res.writeHead(200).end();
  const chunks = [];
  req.on('data', (d) => chunks.push(d));
  req.on('end', () => {
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return void res.writeHead(400).end();
    }
    if (message.id === undefined) return void res.writeHead(202).end(); // a notification
    const result = resultOf(message);
    const body = result === undefined ? { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `unknown method ${message.method}` } } : { jsonrpc: '2.0', id: message.id, result };
    const headers = { 'content-type': 'application/json' };
    if (message.method === 'initialize') headers['mcp-session-id'] = randomUUID();
    res.writeHead(200, headers).end(JSON.stringify(body));
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => process.exit(0));
