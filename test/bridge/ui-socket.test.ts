/**
 * The browser UI door over real HTTP on 127.0.0.1: the token URL, the cookie, the files, and the WebSocket
 * refusing anything but this server's own signed-in page.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import type { ServerMessage } from '../../src-main/common/ui-protocol';
import { decodeShellFrame, type ShellDataMessage } from '../../src-main/common/ui-shell-frame';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome } from '../helpers/env';

const home = makeHome();
let running: RunningRoom;
let port: number;
let origin: string;
let cookie: string;

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

/** Opens the UI socket; resolves with the first message, or the HTTP status it was refused with. */
function openSocket(headers: Record<string, string>): Promise<{ ws?: WebSocket; first?: ServerMessage; refused?: number; body?: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ui/socket`, { headers });
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

describe('the token URL', () => {
  it('is a /ui/ URL with a 256-bit token of its own, not the operator token', () => {
    const url = running.uiUrl as URL;
    expect(url.origin).toBe(origin);
    expect(url.pathname).toBe('/ui/');
    const token = url.searchParams.get('token') ?? '';
    expect(token).toMatch(/^cr_[A-Za-z0-9_-]{43}$/);
    expect(token).not.toBe(fs.readFileSync(running.tokenFile, 'utf8').trim());
  });

  it('without the token or its cookie, the UI gives nothing', async () => {
    for (const p of ['/ui/', '/ui/assets/app.js', '/ui/index.html', '/ui']) {
      const r = await get(p);
      expect(r.status).toBe(401);
      expect(r.body).not.toContain('<title>UI</title>');
      expect(r.body).toContain('commonroom serve');
    }
    const wrong = await get('/ui/?token=cr_' + 'A'.repeat(43));
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('trades the token for an HttpOnly SameSite=Strict cookie and a 303 to /ui/ without it', async () => {
    const url = running.uiUrl as URL;
    const r = await get(url.pathname + url.search);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/ui/');
    const set = r.headers['set-cookie']?.[0] ?? '';
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    expect(set).toMatch(/Path=\/ui(;|$)/);
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    cookie = set.split(';')[0] as string;
    expect(cookie).toMatch(/^commonroom_ui_\d+=cr_/);
  });

  it('with the cookie, serves the built UI under a strict CSP, and nothing outside it', async () => {
    const page = await get('/ui/', { Cookie: cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>UI</title>');
    const csp = page.headers['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect((await get('/ui/assets/app.js', { Cookie: cookie })).headers['content-type']).toMatch(/javascript/);
    expect((await get('/ui/terminals', { Cookie: cookie })).body).toContain('<title>UI</title>'); // an app route
    for (const p of ['/ui/../secret.txt', '/ui/..%2fsecret.txt', '/ui/%2e%2e/secret.txt', '/ui/assets/missing.js']) {
      const r = await get(p, { Cookie: cookie });
      expect(r.body).not.toContain('do not serve');
      expect(r.status).toBe(404);
    }
    // the same Host check as the MCP door
    expect((await get('/ui/', { Cookie: cookie, Host: `evil.example:${port}` })).status).toBe(403);
  });
});

describe('the UI WebSocket', () => {
  it('without the cookie is refused', async () => {
    const r = await openSocket({ Origin: origin });
    expect(r.refused).toBe(401);
  });

  it('from another origin is refused, even with the cookie (another local port, another host, none)', async () => {
    for (const bad of [`http://127.0.0.1:${port + 1}`, 'http://evil.example', 'null']) {
      const r = await openSocket({ Cookie: cookie, Origin: bad });
      expect(r.refused).toBe(403);
    }
    expect((await openSocket({ Cookie: cookie })).refused).toBe(403);
  });

  it('with a wrong Host is refused (DNS rebinding)', async () => {
    const r = await openSocket({ Cookie: cookie, Origin: `http://evil.example:${port}`, Host: `evil.example:${port}` });
    expect(r.refused).toBe(403);
  });

  it('from the signed-in page: hello, calls as the operator, live events', async () => {
    const r = await openSocket({ Cookie: cookie, Origin: origin });
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
    const r = await openSocket({ Cookie: cookie, Origin: origin });
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
    const pages = [await openSocket({ Cookie: cookie, Origin: origin }), await openSocket({ Cookie: cookie, Origin: origin })];
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
    const r = await openSocket({ Cookie: cookie, Origin: origin });
    const ws = r.ws as WebSocket;
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ t: 'call', id: 1, method: 'shell_list', input: { x: 'a'.repeat(running.engine.limits.maxBodyBytes + 10) } }));
    expect(await closed).toBe(1009);
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
