/**
 * No local program locks anyone out, at the default limits. 200 idle sockets that never authenticate and one
 * agent holding 200 long polls at once: the agent is held to its own share (the polls past it are refused
 * with its own count), and the operator's calls, the browser UI's sign-in and socket, `ce` and another agent
 * (a real MCP SDK client) all still answer. Real HTTP on 127.0.0.1 against `commonroom serve`.
 */
import net from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LIMITS } from '../../src-main/common/limits';
import { makeHome } from '../helpers/env';
import { runCe, startServe, stopServe, type ServeProcess } from '../helpers/serve';

const home = makeHome();
let serve: ServeProcess;
let base: URL;
const sockets: net.Socket[] = [];

async function api(token: string, method: string, body: unknown): Promise<{ status: number; body: { result?: Record<string, unknown>; error?: { message: string } } }> {
  const res = await fetch(new URL(`/api/${method}`, base), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as never };
}

function rawSocket(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port: Number(base.port) });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
    sockets.push(s);
  });
}

beforeAll(async () => {
  serve = await startServe(home);
  base = new URL(serve.mcpUrl);
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  if (serve) await stopServe(serve);
  home.cleanup();
});

describe('connections counted by who holds them', () => {
  it("200 idle unauthenticated sockets and one agent's 200 long polls lock out nobody else", { timeout: 90_000 }, async () => {
    const mallory = (await api(serve.token, 'participant_add', { name: 'mallory', capabilities: ['read', 'write'] })).body.result?.token as string;
    const other = (await api(serve.token, 'participant_add', { name: 'other', capabilities: ['read', 'write'] })).body.result?.token as string;
    const { graphId } = (await api(mallory, 'tasks_run', { name: 'hold', stages: [{ id: 'wait', command: ['sleep', '120'] }] })).body.result as { graphId: string };

    for (let i = 0; i < 200; i++) await rawSocket();
    // 200 long polls, each on a connection of its own
    const answers: Promise<string>[] = [];
    for (let i = 0; i < 200; i++) {
      const s = await rawSocket();
      const body = JSON.stringify({ graphId, waitMs: 60_000 });
      answers.push(new Promise((resolve) => s.once('data', (d) => resolve(d.toString()))));
      s.write(`POST /api/tasks_status HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${mallory}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    }
    // the polls past the agent's share are refused at once, with its own count
    const refused = await Promise.all(answers.slice(LIMITS.maxConnectionsPerParticipant + 8));
    for (const r of refused) {
      expect(r).toMatch(/^HTTP\/1\.1 503/);
      expect(r).toContain(`mallory has ${LIMITS.maxConnectionsPerParticipant} connections open`);
    }

    // the operator's calls
    expect((await api(serve.token, 'room_info', {})).status).toBe(200);
    // ce (the operator, through the room process)
    const listed = runCe({ ...home }, ['participant', 'list']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('mallory');
    // the browser UI: a new sign-in link, its session, its socket
    const link = new URL((await api(serve.token, 'ui_link_create', {})).body.result?.url as string);
    const signIn = await fetch(new URL('/ui/session', base), { method: 'POST', headers: { authorization: `Bearer ${new URLSearchParams(link.hash.slice(1)).get('token')}` } });
    expect(signIn.status).toBe(200);
    const { secret } = (await signIn.json()) as { secret: string };
    const hello = await new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(`ws://${base.host}/ui/socket`, ['commonroom.ui', `commonroom.auth.${secret}`], { headers: { Origin: `http://${base.host}` } });
      ws.once('message', (d) => (resolve(d.toString()), ws.close()));
      ws.once('error', reject);
    });
    expect(hello).toMatch(/"t":"hello"/);
    // another agent, a real MCP client
    const client = new Client({ name: 'other', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${other}` } } }));
    const opened = await client.callTool({ name: 'shell_list', arguments: {} });
    expect(opened.isError).toBeFalsy();
    await client.close();
  });
});
