/**
 * One agent's flood of long polls costs another agent nothing. Mallory keeps 100 `tasks_status` long polls
 * going at once, each on a new connection, and starts the next as soon as one is answered; meanwhile another
 * agent (a real MCP SDK client whose every request opens a new connection, as a client without a pool does)
 * makes 114 ordinary calls. Every one of them is answered, and every one of Mallory's is either answered or
 * refused with a JSON 503 that names her own count: nobody sees a socket closed under a request (before the
 * fix, the oldest unauthenticated socket was closed to make room for each new one, and under the flood that
 * was often a socket whose request was on its way: 4 to 8 of the 114 calls failed with "socket hang up").
 * Real HTTP on 127.0.0.1 against `commonroom serve`; bounded by the other agent's 114 calls. And the grace
 * that protects a young socket never locks the person out: at the total, a newcomer still gets in.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src-main/common/limits';
import { startRunner } from '../../src-main/server/runner';
import { makeHome } from '../helpers/env';
import { freshConnectionFetch } from '../helpers/fresh-fetch';
import { startServe, stopServe, type ServeProcess } from '../helpers/serve';

const FLOOD = 100;
const CALLS = 114;

const home = makeHome();
let serve: ServeProcess;
let base: URL;

async function api(token: string, method: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(new URL(`/api/${method}`, base), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await res.json()) as { result?: Record<string, unknown>; error?: { message: string } };
  if (!answer.result) throw new Error(`${method}: ${answer.error?.message ?? res.status}`);
  return answer.result;
}

/** One long poll on a connection of its own: its status and body, or the socket error that ended it. */
function longPoll(token: string, graphId: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ graphId, waitMs: 2_000 });
    const req = http.request(
      { host: '127.0.0.1', port: Number(base.port), path: '/api/tasks_status', method: 'POST', agent: false, headers: { host: base.host, authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', (e) => resolve({ error: e.message }));
      },
    );
    req.on('error', (e) => resolve({ error: e.message }));
    req.end(body);
  });
}

beforeAll(async () => {
  serve = await startServe(home);
  base = new URL(serve.mcpUrl);
}, 60_000);

afterAll(async () => {
  if (serve) await stopServe(serve);
  home.cleanup();
});

describe("a flood of one agent's long polls", () => {
  it("fails none of another agent's calls, and the flooder is refused with its own count", { timeout: 120_000 }, async () => {
    const mallory = (await api(serve.token, 'participant_add', { name: 'mallory', capabilities: ['read', 'write'] })).token as string;
    const other = (await api(serve.token, 'participant_add', { name: 'other', capabilities: ['read', 'write'] })).token as string;
    const { graphId } = (await api(mallory, 'tasks_run', { name: 'hold', stages: [{ id: 'wait', command: ['sleep', '300'] }] })) as { graphId: string };

    let flooding = true;
    const answers: Array<{ status: number; body: string } | { error: string }> = [];
    const flood = Array.from({ length: FLOOD }, async () => {
      while (flooding) answers.push(await longPoll(mallory, graphId));
    });

    const client = new Client({ name: 'other', version: '1' });
    const failures: string[] = [];
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { fetch: freshConnectionFetch, requestInit: { headers: { Authorization: `Bearer ${other}` } } }));
      for (let i = 0; i < CALLS; i++) {
        try {
          const r = await client.callTool({ name: i % 2 ? 'shell_list' : 'room_info', arguments: {} });
          if (r.isError) failures.push(JSON.stringify(r.content));
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error));
        }
      }
    } finally {
      flooding = false;
      await Promise.all(flood);
      await client.close();
    }

    expect(failures, `${failures.length} of the other agent's ${CALLS} calls failed`).toEqual([]);
    // the flood really ran past mallory's share, and every answer she got was an answer
    const refused = answers.filter((a) => 'status' in a && a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const a of answers) {
      expect(a, 'a long poll ended without an answer').not.toHaveProperty('error');
      if (!('status' in a) || a.status === 200) continue;
      expect(a.status).toBe(503);
      expect((JSON.parse(a.body) as { error: { message: string } }).error.message).toContain(`mallory has ${LIMITS.maxConnectionsPerParticipant} connections open`);
    }
  });
});

describe('at the total of open connections', () => {
  it('a newcomer still gets in: a socket that sent nothing is closed for it, even within its grace', async () => {
    const small = makeHome();
    const running = await startRunner({ port: 0, paths: small.paths, limits: { maxUnauthenticatedConnections: 4, maxConnections: 8, reservedOperatorConnections: 2 } });
    const held: net.Socket[] = [];
    try {
      const port = Number(running.baseUrl.port);
      for (let i = 0; i < 8; i++) {
        const s = net.connect({ host: '127.0.0.1', port });
        s.on('error', () => undefined);
        await new Promise((r) => s.once('connect', r));
        held.push(s);
      }
      // the person's call, on a new connection while eight young sockets fill the total
      const token = fs.readFileSync(running.tokenFile, 'utf8').trim();
      const res = await fetch(new URL('/api/room_info', running.baseUrl), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(200);
    } finally {
      for (const s of held) s.destroy();
      await running.close();
      small.cleanup();
    }
  });
});
