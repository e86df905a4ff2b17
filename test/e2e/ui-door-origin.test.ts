/**
 * The browser UI door in real Chromium against a real `commonroom serve`: the token URL signs the page in and
 * leaves the address bar; a page without the token gets nothing; a page of another origin, even another
 * port of 127.0.0.1 in the same browser (the cookie is same-site there), can neither read the UI nor open its socket.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { makeHome } from '../helpers/env';
import { startServe, stopServe, type ServeProcess } from '../helpers/serve';

const home = makeHome();
let serve: ServeProcess;
let browser: Browser;
let foreign: http.Server;
let foreignOrigin: string;
let uiUrl: string;
let origin: string;

beforeAll(async () => {
  serve = await startServe(home);
  uiUrl = /open the UI:\s+(\S+)/.exec(serve.output())?.[1] ?? '';
  origin = new URL(uiUrl).origin;
  foreign = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>somebody else</title>');
  });
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  foreignOrigin = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  foreign?.close();
  if (serve) await stopServe(serve);
  home.cleanup();
});

/** In the page: try the UI's socket; 'open' with its first message, or how it failed. */
function trySocket(target: string): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(target);
    ws.onmessage = (e) => {
      resolve(`open ${String(e.data).slice(0, 40)}`);
      ws.close();
    };
    ws.onerror = () => resolve('error');
    ws.onclose = (e) => resolve(`closed ${e.code}`);
  });
}

describe('the browser UI door in Chromium', () => {
  it('the token URL signs in and leaves the address bar; the signed-in page opens the socket', { timeout: 60_000 }, async () => {
    expect(uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/\?token=cr_/);
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(uiUrl);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${origin}/ui/`);
    const cookies = await context.cookies(`${origin}/ui/`);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/ui' });
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(trySocket, `${origin.replace('http', 'ws')}/ui/socket`)).toMatch(/^open \{"t":"hello"/);
    await context.close();
  });

  it('a page without the token gets nothing', { timeout: 60_000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(`${origin}/ui/`);
    expect(response?.status()).toBe(401);
    expect(await page.content()).not.toContain('<script');
    expect(await page.evaluate(trySocket, `${origin.replace('http', 'ws')}/ui/socket`)).not.toMatch(/^open/);
    await context.close();
  });

  it('a page of another origin in the same signed-in browser can neither read the UI nor open its socket', { timeout: 60_000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(uiUrl); // this browser is signed in: its cookie would ride along on same-site requests
    const evil = await context.newPage();
    await evil.goto(`${foreignOrigin}/`);
    const attempts = await evil.evaluate(
      async ({ target, trySocketSource }) => {
        const read = async (init: RequestInit, path: string) => {
          try {
            const r = await fetch(`${target}${path}`, { credentials: 'include', ...init });
            return `status ${r.status} ${(await r.text()).slice(0, 30)}`;
          } catch (error) {
            return `failed ${(error as Error).name}`;
          }
        };
        const socket = new Function(`return (${trySocketSource})`)() as (t: string) => Promise<string>;
        return {
          page: await read({}, '/ui/'),
          api: await read({ method: 'POST', body: '{}', headers: { 'Content-Type': 'text/plain' } }, '/api/shell_list'),
          socket: await socket(`${target.replace('http', 'ws')}/ui/socket`),
        };
      },
      { target: origin, trySocketSource: trySocket.toString() },
    );
    expect(attempts.page).toMatch(/^failed/); // refused (403, no CORS): the page cannot read a byte
    expect(attempts.api).toMatch(/^failed/);
    expect(attempts.socket).not.toMatch(/^open/);
    // the same request from our own page works, so the refusal above is about the origin
    expect(await page.evaluate(trySocket, `${origin.replace('http', 'ws')}/ui/socket`)).toMatch(/^open/);
    await context.close();
  });
});
