/**
 * The desktop app's main process, run from its built file (out/main/app.js) with Electron's modules standing in
 * at their documented API (test/harness/electron): its window's security options and guards, one instance per
 * user, quitting (the room closes as `serve` closes it: lock released, process trees ended), the app menu's
 * standard roles in the terminal, and the window it shows when the room cannot open. Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Room } from '../../src-main/engine/index';
import { outputFile } from '../e2e/helpers/open-ui';
import { terminalText } from '../e2e/helpers/page-terminal';
import { startServe, stopServe } from '../helpers/serve';
import { markedSleep, waitForProcessWith } from '../helpers/env';
import { alive, connectAgent, desktopRoom, launchBrowser, launchDesktop, tool, withDesktop } from './helpers';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe('the main process', () => {
  it('opens one sandboxed, isolated window without Node, and guards navigation, new windows, permissions and CSP', async () => {
    await withDesktop(browser, async ({ desktop, win }) => {
      expect(win.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInSubFrames: false, webSecurity: true, webviewTag: false });
      expect(String(win.options.webPreferences?.preload)).toMatch(/out[/\\]preload[/\\]preload\.cjs$/);
      const home = win.page.url();
      // the page tries to leave: the main process's will-navigate guard stops it
      await win.page.evaluate(() => void (window.location.href = 'https://evil.example/phish'));
      await expect.poll(() => win.navigations).toEqual([{ url: 'https://evil.example/phish', prevented: true }]);
      expect(win.page.url()).toBe(home);
      // window.open is denied by the window-open handler
      await win.page.evaluate(() => void window.open('https://evil.example/popup'));
      await expect.poll(() => win.navigations.length).toBe(2);
      expect(win.navigations[1]).toEqual({ url: 'window.open https://evil.example/popup', prevented: true });
      // every permission request is refused; every response gets the strict CSP
      expect(await desktop.requestPermission(win.id, 'media')).toBe(false);
      expect(await desktop.requestPermission(win.id, 'notifications')).toBe(false);
      const headers = await desktop.responseHeaders(home, {});
      expect(headers['Content-Security-Policy']?.[0]).toMatch(/script-src 'self'/);
      // the app menu has the standard editing roles
      const edit = (desktop.menu as Array<{ label?: string; role?: string; submenu?: Array<{ role?: string }> }>).find((m) => m.label === 'Edit');
      expect(edit?.submenu?.map((i) => i.role).filter(Boolean)).toEqual(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']);
    });
  });

  it('a second launch leaves at once and brings the first window forward', async () => {
    const where = desktopRoom();
    const first = launchDesktop(browser, where);
    try {
      const win = await first.firstWindow();
      await win.page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor({ timeout: 20_000 });
      const second = launchDesktop(browser, where);
      expect(await second.exited).toBe(0);
      expect(second.windows.size).toBe(0);
      await expect.poll(() => win.calls.filter((c) => c === 'focus').length, { timeout: 10_000 }).toBe(1);
    } finally {
      await first.quit();
      where.home.cleanup();
    }
  });

  it("quitting closes the room as serve does: its shells' and stages' process trees end, and the lock is released", async () => {
    const where = desktopRoom();
    const desktop = launchDesktop(browser, where);
    let agent: Client | undefined;
    try {
      const win = await desktop.firstWindow();
      await win.page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor({ timeout: 20_000 });
      agent = await connectAgent(where, 'worker');
      const { shell } = await tool<{ shell: { id: string; pid: number } }>(agent, 'shell_open', { shell: '/bin/sh' });
      const marker = markedSleep();
      await tool(agent, 'tasks_run', { name: 'long', stages: [{ id: 'wait', command: ['sh', '-c', `sleep ${marker}; true`] }] });
      // the agent's stage runs in the sandbox's pid namespace: found by its argument
      const stagePid = await waitForProcessWith(marker, 15_000);
      expect(alive(shell.pid) && alive(stagePid)).toBe(true);
      await agent.close();
      agent = undefined;
      expect(await desktop.quit()).toBe(0);
      expect(alive(shell.pid)).toBe(false);
      expect(alive(stagePid)).toBe(false);
      // another process may take the room at once
      const room = Room.open({ markdown: where.room, paths: where.home.paths });
      room.close();
    } finally {
      await agent?.close();
      await desktop.quit();
      where.home.cleanup();
    }
  });

  it('closing the window with nothing live quits the app and closes the room (Linux and Windows)', async () => {
    const where = desktopRoom();
    const desktop = launchDesktop(browser, where);
    try {
      const win = await desktop.firstWindow();
      await win.page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor({ timeout: 20_000 });
      desktop.closeWindow(win.id);
      expect(await desktop.exited).toBe(0);
      // nothing was live: nothing asked, no tray item
      expect(desktop.dialogs).toEqual([]);
      expect(desktop.trays.size).toBe(0);
      Room.open({ markdown: where.room, paths: where.home.paths }).close();
    } finally {
      where.home.cleanup();
    }
  });

  it('Edit → Paste and Edit → Copy work in the terminal', async () => {
    await withDesktop(browser, async ({ desktop, win }) => {
      const page = win.page;
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByRole('button', { name: /Open a shell myself/ }).click();
      await page.getByTestId('terminal').waitFor({ timeout: 15_000 });
      const shellId = (await page.getByTestId('terminal').getAttribute('data-shell-id')) as string;
      await expect.poll(() => terminalText(page, shellId), { timeout: 15_000 }).toMatch(/\S/);
      await page.getByTestId('terminal').click();
      await page.evaluate(() => navigator.clipboard.writeText('echo pasted-$((40+2))'));
      await desktop.menuRole('paste');
      await page.keyboard.press('Enter');
      await expect.poll(() => terminalText(page, shellId as string), { timeout: 15_000 }).toContain('pasted-42');
      // the person selects the terminal's text with the mouse and copies it: the clipboard holds it
      const screen = await page.locator('.xterm-screen').boundingBox();
      if (!screen) throw new Error('no terminal on the page');
      await page.mouse.move(screen.x + 2, screen.y + 2);
      await page.mouse.down();
      await page.mouse.move(screen.x + screen.width - 2, screen.y + screen.height / 2, { steps: 5 });
      await page.mouse.up();
      await desktop.menuRole('copy');
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), { timeout: 10_000 }).toContain('pasted-42');
      // the person's shell is sh here, not their interactive bash: its ~/.bashrc (pyenv init on this machine,
      // which waits up to a minute on a rehash lock a killed shell left behind) is not what this test is about
    }, { SHELL: '/bin/sh' });
  });

  it('when another process holds the room and cannot be shown (its operator token is not ours), the window names its pid and opens another room the person picks', async () => {
    const where = desktopRoom();
    const serve = await startServe({ ...where.home, env: where.env }, ['--room', where.room]);
    // as for a room another account's process holds: no operator token of ours reaches it, so it cannot be shown
    // through its UI door (a room process whose token we hold is shown: desktop-background.test.ts)
    fs.rmSync(serve.tokenFile);
    const desktop = launchDesktop(browser, where);
    const other = path.join(where.home.root, 'other', 'second room.md');
    fs.mkdirSync(path.dirname(other), { recursive: true });
    try {
      const win = await desktop.firstWindow();
      const page = win.page;
      const notice = page.getByTestId('room-unavailable');
      await expect.poll(() => notice.innerText(), { timeout: 20_000 }).toContain(`pid ${serve.proc.pid}`);
      await notice.getByText('What the room said').click();
      expect(await notice.innerText()).toMatch(/already open in another room process/);
      await page.screenshot({ path: outputFile('desktop-room-unavailable.png') });
      desktop.answerDialog = (request) => (request.kind === 'open' ? { canceled: false, filePaths: [other] } : { canceled: true, filePaths: [] });
      await notice.getByRole('button', { name: /Open another room/ }).click();
      await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor({ timeout: 20_000 });
      expect(desktop.dialogs.map((d) => d.kind)).toEqual(['open']);
      // the room's name, in the window's title (the sidebar shows it only when wide enough)
      await expect.poll(() => page.title()).toBe('second room.md — Commonroom');
      expect(fs.existsSync(`${other}.commonroom.db`)).toBe(true);
    } finally {
      await desktop.quit();
      await stopServe(serve);
      where.home.cleanup();
    }
  });
});
