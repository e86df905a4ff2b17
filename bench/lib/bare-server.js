#!/usr/bin/env node
// The physical baseline for the MCP doors: a bare v2 SDK server (@modelcontextprotocol/server +
// @modelcontextprotocol/node, both eras from one createMcpHandler, the SDK's default stateless posture for
// 2025 clients) with a no-op tool, on node:http, behind the same loopback Host/Origin checks and a bearer
// token. It also serves a bare SSE broadcast (GET /fanout streams, POST /emit), and `durable_broadcast`, the
// baseline of `fanout`: an MCP call that commits one row (fsync) and then sends its `n` to every /fanout stream,
// the work the room does for one event (a call, a durable commit, a broadcast) and nothing else.
// `durable_noop` is the floor of a call that changes state: it commits one row to a SQLite file opened as the
// room opens its own (WAL, synchronous=FULL: one fsync per commit), in the same temporary folder as the rooms.
// `bulk` is the floor of a call answering shell output (see its comment).
// Prints one JSON line {"port":N} once it listens.
import http from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { createMcpHandler, localhostAllowedHostnames, localhostAllowedOrigins, McpServer, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const expected = Buffer.from(`Bearer ${process.env.BENCH_TOKEN ?? 'bench'}`);
const authorized = (header) => {
  const got = Buffer.from(header ?? '');
  return got.length === expected.length && timingSafeEqual(got, expected);
};

/** Opened on the first durable call, so that the `startup` baseline does not load better-sqlite3. */
let durable = null;
function durableInsert() {
  if (!durable) {
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-bench-bare-'));
    const db = new Database(path.join(dir, 'bare.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE calls (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)');
    durable = { dir, db, insert: db.prepare('INSERT INTO calls (at) VALUES (?)') };
  }
  durable.insert.run(Date.now());
}

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'bare-baseline', version: '1.0.0' });
  server.registerTool('noop', { description: 'does nothing', inputSchema: z.object({}).passthrough() }, async () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  server.registerTool('durable_noop', { description: 'commits one row (fsync) and does nothing else', inputSchema: z.object({}).passthrough() }, async () => {
    durableInsert();
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  server.registerTool('durable_broadcast', { description: 'commits one row (fsync), then sends n to every /fanout stream', inputSchema: z.object({ n: z.number() }).passthrough() }, async ({ n }) => {
    durableInsert();
    broadcast(JSON.stringify({ n }));
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  // the floor of an answer carrying bulk output: `bytes` of 'y' (prebuilt, as a shell's ring holds them), in
  // structuredContent and again as its JSON in a text block (the shape every room tool answers) or, with
  // once: true, only in the text block
  server.registerTool(
    'bulk',
    { description: 'answers bytes of y', inputSchema: z.object({ bytes: z.number().int().min(1).max(4 * 1024 * 1024), once: z.boolean().optional() }).passthrough() },
    async ({ bytes, once }) => {
      const output = bulkOutput(bytes);
      if (once) return { content: [{ type: 'text', text: output }] };
      const result = { output, cursor: 'c', nextCursor: 'n', more: false, truncated: false };
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    },
  );
  return server;
});
let bulk = '';
const bulkOutput = (bytes) => (bulk.length === bytes ? bulk : (bulk = Buffer.alloc(bytes, 'y').toString('latin1')));
const mcp = toNodeHandler(handler);
const hosts = localhostAllowedHostnames();
const origins = localhostAllowedOrigins();
const streams = new Set();
const broadcast = (body) => {
  for (const s of streams) s.write(`event: message\ndata: ${body}\n\n`);
};

const server = http.createServer((req, res) => {
  if (!validateHostHeader(req.headers.host, hosts).ok || !validateOriginHeader(req.headers.origin, origins).ok) return void res.writeHead(403).end();
  if (!authorized(req.headers.authorization)) return void res.writeHead(401).end();
  if (req.url === '/fanout') {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    res.write(': ready\n\n');
    streams.add(res);
    req.on('close', () => streams.delete(res));
    return;
  }
  if (req.url === '/emit') {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      broadcast(body);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    return;
  }
  void mcp(req, res);
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => {
  if (durable) {
    durable.db.close();
    fs.rmSync(durable.dir, { recursive: true, force: true });
  }
  process.exit(0);
});
