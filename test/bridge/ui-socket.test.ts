/**
 * The browser UI door over real HTTP on 127.0.0.1: the one-time sign-in link, the session secret it is traded
 * for (no cookie), the files, and the WebSocket refusing anything but this server's own signed-in page.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import WebSocket from 'ws';
import type { ServerMessage } from '../../src-main/common/ui-protocol';
import { decodeShellFrame, type ShellDataMessage } from '../../src-main/common/ui-shell-frame';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome } from '../helpers/env';

const home = makeHome();
let running: RunningRoom;
let port: number;
let origin: string;
let secret: string;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(pathname: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function request(method: string, pathname: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, method, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Opens the UI socket as the page does (the UI's subprotocol, the secret as a second one unless `auth` is
 * false); resolves with the first message, or the HTTP status it was refused with.
 */
function openSocket(headers: Record<string, string>, auth = true): Promise<{ ws?: WebSocket; first?: ServerMessage; refused?: number; body?: string }> {
  return new Promise((resolve, reject) => {
    const protocols = auth ? ['commonroom.ui', `commonroom.auth.${secret}`] : ['commonroom.ui'];
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ui/socket`, protocols, { headers });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ refused: res.statusCode ?? 0, body }));
    });
    ws.once('message', (data) => resolve({ ws, first: JSON.parse(data.toString()) as ServerMessage }));
    ws.once('error', (e) => {
      if (!/Unexpected server response/.test(e.message)) reject(e);
    });
  });
}

beforeAll(async () => {
  const rendererDir = path.join(home.root, 'renderer');
  fs.mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>UI</title><script type="module" src="./assets/app.js"></script>');
  fs.writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log("app");');
  fs.writeFileSync(path.join(home.root, 'secret.txt'), 'do not serve');
  running = await startRunner({ paths: home.paths, port: 0, rendererDir });
  port = Number(running.baseUrl.port);
  origin = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await running.close();
  home.cleanup();
});

describe('the sign-in link', () => {
  it('is a /ui/ URL whose fragment carries a 256-bit one-time token of its own, not the operator token', () => {
    const url = running.uiUrl as URL;
    expect(url.origin).toBe(origin);
    expect(url.pathname).toBe('/ui/');
    expect(url.search).toBe('');
    const token = new URLSearchParams(url.hash.slice(1)).get('token') ?? '';
    expect(token).toMatch(/^cr_[A-Za-z0-9_-]{43}$/);
    expect(token).not.toBe(fs.readFileSync(running.tokenFile, 'utf8').trim());
  });

  it('is traded once for a session secret (no cookie); a second use and a made-up token are refused, saying what to do', async () => {
    const token = new URLSearchParams((running.uiUrl as URL).hash.slice(1)).get('token') ?? '';
    const first = await request('POST', '/ui/session', { Authorization: `Bearer ${token}` });
    expect(first.status).toBe(200);
    expect(first.headers['set-cookie']).toBeUndefined();
    expect(first.headers['cache-control']).toBe('no-store');
    const body = JSON.parse(first.body) as { secret: string; sessionId: string };
    expect(body.secret).toMatch(/^cr_/);
    expect(body.secret).not.toBe(token);
    secret = body.secret;
    const again = await request('POST', '/ui/session', { Authorization: `Bearer ${token}` });
    expect(again.status).toBe(401);
    expect(again.body).toMatch(/already used[\s\S]*ce ui-link/);
    const madeUp = await request('POST', '/ui/session', { Authorization: `Bearer cr_${'A'.repeat(43)}` });
    expect(madeUp.status).toBe(401);
    expect(madeUp.body).toMatch(/not valid for this room process/);
    expect((await request('POST', '/ui/session')).status).toBe(401);
    // the secret is checked, never the link
    expect((await request('GET', '/ui/session', { Authorization: `Bearer ${secret}` })).status).toBe(200);
    expect((await request('GET', '/ui/session', { Authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it('a link of the old form (?token=) is moved into the fragment, never traded by the server', async () => {
    const r = await get(`/ui/?token=cr_${'B'.repeat(43)}`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe(`/ui/#token=cr_${'B'.repeat(43)}`);
    expect(r.headers['set-cookie']).toBeUndefined();
  });

  it('serves the public bundle under a strict CSP, and nothing outside it', async () => {
    const page = await get('/ui/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>UI</title>');
    const csp = page.headers['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect((await get('/ui/assets/app.js')).headers['content-type']).toMatch(/javascript/);
    expect((await get('/ui/terminals')).body).toContain('<title>UI</title>'); // an app route
    for (const p of ['/ui/../secret.txt', '/ui/..%2fsecret.txt', '/ui/%2e%2e/secret.txt', '/ui/assets/missing.js']) {
      const r = await get(p);
      expect(r.body).not.toContain('do not serve');
      expect(r.status).toBe(404);
    }
    // the same Host check as the MCP door
    expect((await get('/ui/', { Host: `evil.example:${port}` })).status).toBe(403);
  });
});

describe('the UI WebSocket', () => {
  it('without the secret, or with a made-up one, is refused', async () => {
    expect((await openSocket({ Origin: origin }, false)).refused).toBe(401);
    const saved = secret;
    secret = `cr_${'C'.repeat(43)}`;
    expect((await openSocket({ Origin: origin })).refused).toBe(401);
    secret = saved;
  });

  it('from another origin is refused, even with the secret (another local port, another host, none)', async () => {
    for (const bad of [`http://127.0.0.1:${port + 1}`, 'http://evil.example', 'null']) {
      const r = await openSocket({ Origin: bad });
      expect(r.refused).toBe(403);
    }
    expect((await openSocket({})).refused).toBe(403);
  });

  it('with a wrong Host is refused (DNS rebinding)', async () => {
    const r = await openSocket({ Origin: `http://evil.example:${port}`, Host: `evil.example:${port}` });
    expect(r.refused).toBe(403);
  });

  it('from the signed-in page: hello, calls as the operator, live events', async () => {
    const r = await openSocket({ Origin: origin });
    const ws = r.ws as WebSocket;
    expect(r.first).toMatchObject({ t: 'hello', operator: 'operator', mcpUrl: running.mcpUrl.toString() });
    const inbox: ServerMessage[] = [];
    ws.on('message', (d) => inbox.push(JSON.parse(d.toString()) as ServerMessage));
    ws.send(JSON.stringify({ t: 'call', id: 1, method: 'participant_add', input: { name: 'agent-x', capabilities: ['read'] } }));
    await expect.poll(() => inbox.find((m) => m.t === 'result' && m.id === 1), { timeout: 10_000 }).toMatchObject({ ok: true });
    await expect.poll(() => inbox.find((m) => m.t === 'event' && m.event.kind === 'participant.added'), { timeout: 10_000 }).toBeTruthy();
    // a message that is not the protocol ends the connection with a reason
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send('{not json');
    expect(await closed).toBe(1007);
  });

  it('a revoked sign-in closes its sockets at once with the signed-out code, and its secret opens nothing after', async () => {
    const link = running.engine.uiSessions.mintLink();
    const signed = JSON.parse((await request('POST', '/ui/session', { Authorization: `Bearer ${new URLSearchParams(link.hash.slice(1)).get('token')}` })).body) as { secret: string; sessionId: string };
    const saved = secret;
    secret = signed.secret;
    const r = await openSocket({ Origin: origin });
    const ws = r.ws as WebSocket;
    expect(ws.protocol).toBe('commonroom.ui');
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    const listed = await running.engine.call(running.engine.operator(), 'ui_session_list', {});
    expect(listed.sessions.find((x) => x.id === signed.sessionId)?.sockets).toBe(1);
    await running.engine.call(running.engine.operator(), 'ui_session_revoke', { sessionId: signed.sessionId });
    expect(await closed).toBe(4401);
    expect((await openSocket({ Origin: origin })).refused).toBe(401);
    secret = saved;
  });

  it('only the operator mints sign-in links: an agent with operate cannot', async () => {
    const { engine } = running;
    await engine.call(engine.operator(), 'participant_add', { name: 'ops-agent', capabilities: ['read', 'operate'] });
    const agent = engine.participantAs(engine.operator(), 'ops-agent');
    await expect(engine.call(agent, 'ui_link_create', {})).rejects.toThrow(/only the operator handles browser UI sign-ins/);
    await expect(engine.call(agent, 'ui_session_list', {})).rejects.toThrow(/only the operator/);
  });

  it('sends shell output as binary frames of raw bytes, whole and in order under flow control; a client may not send binary', { timeout: 60_000 }, async () => {
    // every socket write of this process completes 2 ms late, so frames are still being written while the next
    // ones are gathered (on loopback they would all be written at once): a frame buffer reused before its write
    // completed would carry later bytes over its own
    type Writes = { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
    const proto = net.Socket.prototype as unknown as Writes;
    const { _write: write, _writev: writev } = proto;
    proto._write = function (this: unknown, ...args: unknown[]) {
      setTimeout(() => write.apply(this, args), 2);
    };
    proto._writev = function (this: unknown, ...args: unknown[]) {
      setTimeout(() => writev.apply(this, args), 2);
    };
    onTestFinished(() => {
      proto._write = write;
      proto._writev = writev;
    });
    const r = await openSocket({ Origin: origin });
    const ws = r.ws as WebSocket;
    const texts: ServerMessage[] = [];
    const frames: ShellDataMessage[] = [];
    let next = 0;
    const gaps: string[] = [];
    let shellId = '';
    ws.on('message', (d: Buffer, isBinary) => {
      if (!isBinary) return void texts.push(JSON.parse(d.toString()) as ServerMessage);
      const frame = decodeShellFrame(d);
      if (!frame) return void gaps.push('a binary message that is not a shell frame');
      if (frame.cursor !== next || frame.truncated) gaps.push(`at ${next}: frame at ${frame.cursor}${frame.truncated ? ' (truncated)' : ''}`);
      next = frame.cursor + frame.data.length;
      frames.push(frame);
      // acknowledged as a terminal does once it drew the bytes: without acks the room would stop at the high watermark
      ws.send(JSON.stringify({ t: 'shell.ack', shellId, bytes: frame.data.length }));
    });
    ws.send(JSON.stringify({ t: 'call', id: 1, method: 'shell_open', input: { shell: '/bin/sh', args: [], env: { PS1: '$ ', PATH: process.env.PATH ?? '/usr/bin:/bin' } } }));
    await expect.poll(() => texts.find((m) => m.t === 'result' && m.id === 1), { timeout: 10_000 }).toMatchObject({ ok: true });
    const result = texts.find((m) => m.t === 'result' && m.id === 1) as { value: { shell: { id: string } } };
    shellId = result.value.shell.id;
    ws.send(JSON.stringify({ t: 'shell.attach', shellId, from: 0 }));
    // 5.5 MB of distinct lines (a frame's buffer reused before the socket wrote it would show), 2.5 times the
    // high watermark: the room must wait for acks to send it all
    const lines = 700_000;
    ws.send(JSON.stringify({ t: 'call', id: 2, method: 'shell_io', input: { shellId, text: `seq 1 ${lines}; echo FIN$((1+1)); exit\n` } }));
    await expect.poll(() => texts.find((m) => m.t === 'shell.exit' && m.shellId === shellId), { timeout: 50_000 }).toBeTruthy();
    expect(gaps).toEqual([]);
    expect(frames[0]?.cursor).toBe(0);
    expect(frames.every((f) => f.shellId === shellId)).toBe(true);
    const text = Buffer.concat(frames.map((f) => f.data)).toString('latin1');
    const expected = Array.from({ length: lines }, (_, i) => `${i + 1}\r\n`).join('');
    expect(text.length).toBeGreaterThan(2.5 * 2 * 1024 * 1024);
    // (not toContain: a failing match of megabytes makes vitest build a diff that takes minutes)
    expect(text.includes(`seq 1 ${lines}; echo FIN$((1+1)); exit\r\n${expected}FIN2\r\n`), "the output is not seq's lines, whole and in order").toBe(true);
    // what a client sends stays JSON text: a binary message ends the connection
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(Buffer.from(JSON.stringify({ t: 'shell.detach', shellId })));
    expect(await closed).toBe(1007);
  });

  it('every open page gets each event as a JSON text message, the same one (one serialisation shared by all)', async () => {
    const pages = [await openSocket({ Origin: origin }), await openSocket({ Origin: origin })];
    const inboxes = pages.map((p) => {
      const inbox: { text: string; binary: boolean }[] = [];
      (p.ws as WebSocket).on('message', (d, isBinary) => inbox.push({ text: d.toString(), binary: isBinary }));
      return inbox;
    });
    await running.engine.call(running.engine.operator(), 'participant_add', { name: 'agent-shared', capabilities: ['read'] });
    const added = (inbox: { text: string; binary: boolean }[]) => inbox.find((m) => m.text.includes('"agent-shared"'));
    await expect.poll(() => inboxes.every((inbox) => added(inbox)), { timeout: 10_000 }).toBe(true);
    const [first, second] = inboxes.map((inbox) => added(inbox)!);
    expect(first!.binary).toBe(false);
    expect(second!.binary).toBe(false);
    expect(second!.text).toBe(first!.text);
    expect(JSON.parse(first!.text)).toMatchObject({ t: 'event', event: { kind: 'participant.added' } });
    for (const p of pages) p.ws?.close();
  });

  it('a message over the size limit closes the connection', async () => {
    const r = await openSocket({ Origin: origin });
    const ws = r.ws as WebSocket;
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ t: 'call', id: 1, method: 'shell_list', input: { x: 'a'.repeat(running.engine.limits.maxBodyBytes + 10) } }));
    expect(await closed).toBe(1009);
  });

  it('a message nested deeper than the HTTP doors allow closes the connection before any schema walks it', async () => {
    const errors: unknown[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void errors.push(a));
    const r = await openSocket({ Origin: origin });
    const ws = r.ws as WebSocket;
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    ws.send(`{"t":"call","id":1,"method":"tasks_run","input":{"stages":${deep}}}`);
    expect(await closed).toBe(1009);
    spy.mockRestore();
    expect(errors).toEqual([]);
  });

  it('the MCP door is unchanged: no bearer token, no answer', async () => {
    const r = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(r).toBe(401);
  });
});
