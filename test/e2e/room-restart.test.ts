/**
 * After the room restarts (issue 35, item 5), in real Chromium against a real runner stopped and started
 * again on the same port and home: the open page says the room restarted and how to sign in again
 * (ce ui-link), never a "Reconnecting…" that lasts for ever; a reload says the same, and no address a person
 * may open in a browser (the page, the server's root, a mistyped path) shows raw JSON. A new link signs in
 * again. Needs `npm run build`.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, type TestHome } from '../helpers/env';
import { closeUi, launchChromium, openUi } from './helpers/open-ui';

let home: TestHome;
let runner: RunningRoom;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  home = makeHome();
  runner = await startRunner({ port: 0, paths: home.paths });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1024, height: 700 } })).newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await openUi(page, runner);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await closeUi(runner);
  await runner?.close();
  home?.cleanup();
});

/** The page's text is words for a person, not a JSON body. */
async function notJson(p: Page): Promise<string> {
  const text = (await p.locator('body').innerText()).trim();
  expect(text.startsWith('{'), `raw JSON shown: ${text.slice(0, 120)}`).toBe(false);
  return text;
}

describe('after a room restart', () => {
  it('the open page says the room restarted and how to sign in again; a reload says so too', async () => {
    const port = Number(runner.mcpUrl.port);
    const page1 = page.url();
    await runner.close();
    runner = await startRunner({ port, paths: home.paths });

    const said = page.getByTestId('no-room');
    await said.waitFor({ timeout: 30_000 });
    const text = await said.innerText();
    expect(text).toContain('The room restarted');
    expect(text).toContain('ce ui-link');
    expect(await page.getByTestId('reconnecting').count()).toBe(0);
    await notJson(page);

    await page.reload();
    await said.waitFor();
    expect(await said.innerText()).toContain('The room restarted');
    expect(await said.innerText()).toContain('ce ui-link');
    expect(page.url()).toBe(page1);
    await notJson(page);
  });

  it('no address a person opens in the browser shows raw JSON', async () => {
    const root = new URL('/', runner.mcpUrl).toString();
    for (const address of [root, new URL('/nowhere', root).toString(), new URL('/ui/session', root).toString()]) {
      const other = await browser.newPage();
      await other.goto(address);
      await other.locator('body').waitFor();
      const text = await notJson(other);
      expect(text, address).toMatch(/Commonroom/);
      await other.close();
    }
  });

  it('a new sign-in link signs the page in again', async () => {
    await openUi(page, runner);
    expect(await page.getByTestId('no-room').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
