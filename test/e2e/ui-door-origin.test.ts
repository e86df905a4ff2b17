/**
 * The browser UI's sign-in in real Chromium against a real `commonroom serve`. The printed link signs one tab
 * in, once, and leaves the address bar and the history; a reload keeps the session; a second use of the link
 * is refused with what to do. No credential is ambient: a second local server on another port, reached from
 * the signed-in page by each route an agent controls (a link in a handoff result, a URL printed in a terminal,
 * an OSC 8 hyperlink, a redirect from its own server), receives nothing that opens the UI socket or any API,
 * and a page of that origin can read nothing of ours.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import NodeWebSocket from 'ws';
import { makeHome } from '../helpers/env';
import { runCe, startServe, stopServe, type ServeProcess } from '../helpers/serve';
import { outputFile } from './helpers/open-ui';

const home = makeHome();
let serve: ServeProcess;
let browser: Browser;
let foreign: http.Server;
let foreignOrigin: string;
let uiUrl: string;
let origin: string;
/** Every request the agent's own server received: what a browser sent it. */
const received: Array<{ url: string; headers: http.IncomingHttpHeaders }> = [];

beforeAll(async () => {
  serve = await startServe(home);
  uiUrl = /open the UI:\s+(\S+)/.exec(serve.output())?.[1] ?? '';
  origin = new URL(uiUrl).origin;
  foreign = http.createServer((req, res) => {
    received.push({ url: req.url ?? '', headers: req.headers });
    if (req.url?.startsWith('/redirect')) {
      // the agent's server sends the person on, to the room's UI
      res.writeHead(302, { Location: `${origin}/ui/` });
      return res.end();
    }
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>somebody else</title>');
  });
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  foreignOrigin = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  foreign?.close();
  if (serve) await stopServe(serve);
  home.cleanup();
});

/** In the page: try the UI's socket with these subprotocols; 'open' with its first message, or how it failed. */
function trySocket([target, protocols]: [string, string[]]): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(target, protocols);
    ws.onmessage = (e) => {
      resolve(`open ${String(e.data).slice(0, 40)}`);
      ws.close();
    };
    ws.onerror = () => resolve('error');
    ws.onclose = (e) => resolve(`closed ${e.code}`);
  });
}

const connected = (page: Page) => page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor({ timeout: 20_000 });

async function historyUrls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  const { entries } = (await cdp.send('Page.getNavigationHistory')) as { entries: Array<{ url: string }> };
  await cdp.detach();
  return entries.map((e) => e.url);
}

describe('the browser UI sign-in in Chromium', () => {
  let context: BrowserContext;
  let page: Page;

  it('the printed link signs the tab in, leaves the address bar and the history, and survives a reload', { timeout: 60_000 }, async () => {
    expect(uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/#token=cr_/);
    context = await browser.newContext();
    page = await context.newPage();
    await page.goto(uiUrl);
    await connected(page);
    expect(page.url()).toBe(`${origin}/ui/`);
    expect((await historyUrls(page)).filter((u) => u.includes('token='))).toEqual([]);
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await page.reload();
    await connected(page);
    // the Agents screen lists this sign-in, with a way to sign it out
    await page.getByRole('button', { name: /Agents/ }).click();
    const row = page.getByTestId('ui-sessions').locator('tbody tr');
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    expect(await row.first().innerText()).toMatch(/Sign out/);
    await page.screenshot({ path: outputFile('agents-ui-sign-ins.png'), fullPage: true });
  });

  it('a second use of the link is refused, saying how to get a new one', { timeout: 60_000 }, async () => {
    const other = await browser.newContext();
    const second = await other.newPage();
    await second.goto(uiUrl);
    const banner = second.getByTestId('no-room');
    await expect.poll(() => banner.innerText(), { timeout: 20_000 }).toMatch(/already used[\s\S]*ce ui-link/);
    await second.screenshot({ path: outputFile('ui-sign-in-link-used.png') });
    // a fresh link from `ce ui-link` signs that tab in
    const link = runCe(home, ['ui-link']).stdout.split('\n')[0] as string;
    expect(link).toMatch(/#token=cr_/);
    await second.goto('about:blank');
    await second.goto(link);
    await connected(second);
    // both sign-ins are listed, and revoking one signs its tab out at once, with what to do
    const listed = runCe(home, ['ui-sessions', '--json']);
    const sessions = (JSON.parse(listed.stdout) as { sessions: Array<{ id: string; sockets: number }> }).sessions;
    expect(sessions).toHaveLength(2);
    const newest = sessions[1]?.id as string;
    expect(runCe(home, ['ui-sessions', '--revoke', newest]).status).toBe(0);
    await expect.poll(() => second.getByTestId('no-room').innerText(), { timeout: 20_000 }).toMatch(/Signed out[\s\S]*ce ui-link/);
    await other.close();
  });

  it("no route an agent controls carries a credential to another local port, and that port's pages read nothing of ours", { timeout: 90_000 }, async () => {
    // an agent (a real MCP client) plants each route: a link in a result, a URL and an OSC 8 link in a shell
    const added = JSON.parse(runCe(home, ['participant', 'add', 'mallory', '--can', 'read,write', '--json']).stdout) as { token: string };
    const asker = JSON.parse(runCe(home, ['participant', 'add', 'asker', '--can', 'read,write', '--json']).stdout) as { token: string };
    const connect = async (token: string) => {
      const c = new Client({ name: 'e2e', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL('/mcp', origin), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      return c;
    };
    const mallory = await connect(added.token);
    const askerClient = await connect(asker.token);
    const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })).structuredContent as Record<string, unknown>;
    const { handoff } = await call(askerClient, 'handoff_create', { summary: 'Look at my page', to: 'mallory' });
    const handoffId = (handoff as { id: string }).id;
    await call(mallory, 'handoff_accept', { handoffId });
    await call(mallory, 'handoff_complete', { handoffId, result: `Done, see [the preview](${foreignOrigin}/from-result)` });
    const { shell } = await call(mallory, 'shell_open', { name: 'links', shell: '/bin/sh' });
    const shellId = (shell as { id: string }).id;
    await call(mallory, 'shell_io', { shellId, text: `clear; printf '%s\\n' '${foreignOrigin}/from-terminal'; printf '\\033]8;;${foreignOrigin}/from-osc8\\033\\\\OSC-LINK\\033]8;;\\033\\\\\\n'\n` });

    const popups: Page[] = [];
    context.on('page', (p) => popups.push(p));
    // 1. the result's link, clicked in the inbox
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${handoffId}"], [data-handoff-id="${handoffId}"]`).first().click();
    await page.getByRole('link', { name: 'the preview' }).click();
    // 2 and 3. the URL and the OSC 8 link, clicked in the terminal
    await page.getByRole('button', { name: /Terminals/ }).click();
    await page.locator(`.shell-item[data-shell-id="${shellId}"]`).click();
    // a person clicks the link where the terminal draws it (xterm finds links under the pointer)
    const clickDrawn = async (text: string) => {
      const where = page.locator('.xterm-rows').getByText(text);
      await where.waitFor({ timeout: 15_000 });
      const box = await where.boundingBox();
      if (!box) throw new Error(`${text} is not drawn`);
      await page.mouse.move(box.x + 8, box.y + box.height / 2);
      await page.waitForTimeout(100);
      await page.mouse.click(box.x + 8, box.y + box.height / 2);
    };
    await clickDrawn('from-terminal');
    await clickDrawn('OSC-LINK');
    // 4. the agent's server, visited, redirects back to the room's UI
    const visit = await context.newPage();
    await visit.goto(`${foreignOrigin}/redirect`);
    await expect.poll(() => received.map((r) => r.url.split('?')[0]).sort(), { timeout: 15_000 }).toEqual(expect.arrayContaining(['/from-osc8', '/from-result', '/from-terminal', '/redirect']));
    for (const r of received) {
      expect(r.headers.cookie, `${r.url} carried a cookie`).toBeUndefined();
      expect(r.headers.authorization, `${r.url} carried credentials`).toBeUndefined();
      // (its own pages refer to themselves; none names a page of ours)
      expect(r.headers.referer ?? '', `${r.url} carried our address as its Referer`).not.toContain(origin);
    }
    // whatever the agent's server got, replayed as a program would (any Origin it likes), opens nothing
    for (const r of received) {
      const replay = { ...(r.headers as Record<string, string>), host: new URL(origin).host, origin };
      const socket = await new Promise<string>((resolve) => {
        const ws = new NodeWebSocket(`${origin.replace('http', 'ws')}/ui/socket`, ['commonroom.ui'], { headers: replay });
        ws.once('open', () => (resolve('open'), ws.close()));
        ws.once('unexpected-response', (_q, res) => resolve(`refused ${res.statusCode}`));
        ws.once('error', () => resolve('error'));
      });
      expect(socket).toMatch(/^refused 401/);
      const api = await fetch(`${origin}/api/shell_list`, { method: 'POST', headers: { ...replay, 'content-type': 'application/json' }, body: '{}' });
      expect(api.status).toBe(401);
    }
    // a page of the other port can read nothing of ours: not the page's storage, not the session endpoint
    const evil = popups.find((p) => p.url().startsWith(foreignOrigin)) ?? (await context.newPage());
    if (!evil.url().startsWith(foreignOrigin)) await evil.goto(`${foreignOrigin}/`);
    const stolen = await evil.evaluate(
      async ({ target }) => {
        const read = async (init: RequestInit) => {
          try {
            const r = await fetch(`${target}/ui/session`, { credentials: 'include', ...init });
            return `status ${r.status}`;
          } catch (error) {
            return `failed ${(error as Error).name}`;
          }
        };
        return { storage: JSON.stringify(sessionStorage), get: await read({}), post: await read({ method: 'POST' }) };
      },
      { target: origin },
    );
    expect(stolen).toEqual({ storage: '{}', get: expect.stringMatching(/^failed/), post: expect.stringMatching(/^failed/) });
    // and our own signed-in page still works, so the refusals are about the credential
    expect(await page.evaluate(trySocket, [`${origin.replace('http', 'ws')}/ui/socket`, ['commonroom.ui']] as [string, string[]])).toMatch(/^closed|^error/);
    await connected(page);
    await mallory.close();
    await askerClient.close();
  });
});
