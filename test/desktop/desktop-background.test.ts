/**
 * The room outlives its window (issue 43): closing the window while an agent works leaves the room and the agent
 * running behind a tray item, whose "Open" brings a window back showing them; quitting with live work says what
 * ends and asks (cancel keeps everything, confirm ends it); and the app started while a room process already
 * serves the room (the login service, here a real `commonroom serve`) shows that room through its UI door and
 * starts none of its own, so quitting the app ends nothing. Through the Electron harness; needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalText } from '../e2e/helpers/page-terminal';
import { startServe, stopServe } from '../helpers/serve';
import { commonroom, standinHome } from '../helpers/service-standin';
import { alive, connectAgent, connected, desktopRoom, endpointOf, launchBrowser, launchDesktop, tool, type DesktopRoom } from './helpers';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

/** The operator's HTTP API, as `ce` calls it. */
async function api<T>(where: DesktopRoom, method: string, input: Record<string, unknown>): Promise<T> {
  const { endpoint, token } = endpointOf(where);
  const res = await fetch(new URL(`/api/${method}`, endpoint), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (!body.result) throw new Error(`${method}: ${body.error?.message}`);
  return body.result;
}

/** An agent the room starts (a scripted client in the room's terminal): it answers each line it reads. */
async function startListeningAgent(where: DesktopRoom): Promise<{ shellId: string; participant: string; pid: number }> {
  const script = path.join(path.dirname(where.room), 'listens.sh');
  fs.writeFileSync(script, '#!/bin/sh\necho agent-listening\nwhile read line; do echo "heard-$line"; done\n', { mode: 0o755 });
  const { agent } = await api<{ agent: { shellId: string; participant: string; shell: { pid: number } } }>(where, 'agent_start', { client: 'command', command: [script] });
  return { shellId: agent.shellId, participant: agent.participant, pid: agent.shell.pid };
}

async function agentOutput(where: DesktopRoom, shellId: string): Promise<string> {
  return (await api<{ output: string }>(where, 'shell_io', { shellId, cursor: 'start' })).output;
}

async function shellListed(page: Page, shellId: string): Promise<void> {
  await page.getByRole('button', { name: /Terminals/ }).click();
  await page.locator(`.shell-item[data-shell-id="${shellId}"]`).click({ timeout: 15_000 });
}

describe('the room outlives its window', () => {
  it('closing the window with a live agent keeps the room and the agent behind a tray item; "Open" shows them again', async () => {
    const where = desktopRoom();
    const desktop = launchDesktop(browser, where);
    try {
      const win = await desktop.firstWindow();
      await connected(win.page);
      const agent = await startListeningAgent(where);
      await expect.poll(() => agentOutput(where, agent.shellId), { timeout: 15_000 }).toContain('agent-listening');
      expect(desktop.tray).toBeUndefined();

      desktop.closeWindow(win.id);
      await expect.poll(() => desktop.tray?.shown, { timeout: 15_000 }).toBe(true);
      const tray = desktop.tray;
      expect(tray?.menu?.map((i) => i.label ?? i.type)).toEqual([`room.md: 1 agent (${agent.participant}) running`, 'separator', 'Open Commonroom', 'Quit Commonroom…']);
      expect(tray?.menu?.[0]?.enabled).toBe(false);
      expect(tray?.toolTip).toBe(`Commonroom keeps room.md running: 1 agent (${agent.participant})`);
      expect(tray?.image).toMatchObject({ width: 32, height: 32 });
      // it keeps saying what runs
      await api(where, 'shell_open', { shell: '/bin/sh' });
      await expect.poll(() => desktop.tray?.menu?.[0]?.label, { timeout: 15_000 }).toBe(`room.md: 1 agent (${agent.participant}) and 1 shell running`);

      // the app, the room and the agent go on without a window: the agent still answers, agents still connect
      expect(desktop.exitCode).toBeNull();
      expect(alive(agent.pid)).toBe(true);
      await api(where, 'shell_io', { shellId: agent.shellId, text: 'while-closed\n' });
      await expect.poll(() => agentOutput(where, agent.shellId), { timeout: 15_000 }).toContain('heard-while-closed');
      const late = await connectAgent(where, 'late-comer');
      await tool(late, 'shell_list', {});
      await late.close();

      expect(await desktop.clickTray('Open Commonroom')).toBe(true);
      const again = await desktop.windowAfter(win.id);
      await connected(again.page);
      await expect.poll(() => desktop.tray).toBeUndefined();
      // closed again, the icon itself (activated: a click, or a double click on some Linux desktops) opens it too
      desktop.closeWindow(again.id);
      await expect.poll(() => desktop.tray?.shown, { timeout: 15_000 }).toBe(true);
      expect(await desktop.clickTray()).toBe(true);
      const third = await desktop.windowAfter(again.id);
      await connected(third.page);
      await expect.poll(() => desktop.tray).toBeUndefined();
      // the agent's terminal is there, with what it said while the window was closed
      await shellListed(third.page, agent.shellId);
      await expect.poll(() => terminalText(third.page, agent.shellId), { timeout: 15_000 }).toContain('heard-while-closed');
      expect(desktop.dialogs).toEqual([]);
    } finally {
      desktop.answerDialog = () => ({ response: 0, checkboxChecked: false });
      await desktop.quit();
      where.home.cleanup();
    }
  }, 120_000);

  it('quitting with live work says what ends and asks: cancel keeps everything, confirm ends it and frees the room', async () => {
    const where = desktopRoom();
    const desktop = launchDesktop(browser, where);
    try {
      const win = await desktop.firstWindow();
      await connected(win.page);
      const agent = await startListeningAgent(where);
      const worker = await connectAgent(where, 'worker');
      const { shell } = await tool<{ shell: { id: string; pid: number } }>(worker, 'shell_open', { shell: '/bin/sh' });
      await worker.close();

      desktop.answerDialog = (request) => (request.kind === 'message' ? { response: 1, checkboxChecked: false } : { canceled: true, filePaths: [] });
      desktop.askToQuit();
      await expect.poll(() => desktop.dialogs.length, { timeout: 15_000 }).toBe(1);
      const asked = desktop.dialogs[0]!;
      expect(asked.kind).toBe('message');
      expect(asked.options).toMatchObject({ title: 'Quit Commonroom?', buttons: ['Quit and end them', 'Cancel'], cancelId: 1, defaultId: 1 });
      expect(asked.options.message).toBe(`Quitting ends what runs in room.md: 1 agent (${agent.participant}) and 1 shell.`);
      // cancelled: the app, its window, the agent and the shell all stay
      await api(where, 'shell_io', { shellId: agent.shellId, text: 'after-cancel\n' });
      await expect.poll(() => agentOutput(where, agent.shellId), { timeout: 15_000 }).toContain('heard-after-cancel');
      expect(desktop.exitCode).toBeNull();
      expect(alive(agent.pid) && alive(shell.pid)).toBe(true);
      await shellListed(win.page, agent.shellId);

      // the window closed, the tray's Quit asks the same; confirmed: they end with the room, as under `serve`, and
      // the lock is free
      desktop.closeWindow(win.id);
      await expect.poll(() => desktop.tray?.shown, { timeout: 15_000 }).toBe(true);
      desktop.answerDialog = () => ({ response: 0, checkboxChecked: false });
      expect(await desktop.clickTray('Quit Commonroom…')).toBe(true);
      expect(await desktop.exited).toBe(0);
      expect(desktop.dialogs.map((d) => d.options.message)).toEqual([asked.options.message, asked.options.message]);
      expect(alive(agent.pid)).toBe(false);
      expect(alive(shell.pid)).toBe(false);
      const served = await startServe({ ...where.home, env: where.env }, ['--room', where.room]);
      await stopServe(served);
    } finally {
      await desktop.quit();
      where.home.cleanup();
    }
  }, 120_000);

  it('started while a room process serves the room, the app shows that room through its UI door and starts none; quitting it ends nothing', async () => {
    const where = desktopRoom();
    const serve = await startServe({ ...where.home, env: where.env }, ['--room', where.room]);
    let restarted: Awaited<ReturnType<typeof startServe>> | undefined;
    const desktop = launchDesktop(browser, where);
    try {
      const win = await desktop.firstWindow();
      await connected(win.page);
      // the endpoint agents use is the serving process's, and it is still the one recorded for the room
      await expect.poll(() => win.page.locator('.endpoint').innerText()).toBe(serve.mcpUrl);
      expect(endpointOf(where).endpoint).toBe(new URL('/', serve.mcpUrl).toString());
      // an agent of that room process, and its shell typed into from the window (shell output relayed both ways)
      const agent = await startListeningAgent(where);
      await shellListed(win.page, agent.shellId);
      await expect.poll(() => terminalText(win.page, agent.shellId), { timeout: 15_000 }).toContain('agent-listening');
      await win.page.getByTestId('terminal').click();
      await win.page.keyboard.type('typed-in-window');
      await win.page.keyboard.press('Enter');
      await expect.poll(() => agentOutput(where, agent.shellId), { timeout: 15_000 }).toContain('heard-typed-in-window');

      // nothing ends when the app goes (no question asked): the room process and its agent go on
      expect(await desktop.quit()).toBe(0);
      expect(desktop.dialogs).toEqual([]);
      expect(desktop.stderr).not.toMatch(/could not open/);
      expect(serve.proc.exitCode).toBeNull();
      expect(alive(agent.pid)).toBe(true);
      await api(where, 'shell_io', { shellId: agent.shellId, text: 'after-app\n' });
      await expect.poll(() => agentOutput(where, agent.shellId), { timeout: 15_000 }).toContain('heard-after-app');

      // the app again (updated, restarted): the same agent, still there; then the room process itself restarts
      // (the service manager restarts it): the window follows it to the new process, where the shells are gone
      // (they live in the room process's memory)
      const next = launchDesktop(browser, where);
      try {
        const win2 = await next.firstWindow();
        await connected(win2.page);
        await shellListed(win2.page, agent.shellId);
        await expect.poll(() => terminalText(win2.page, agent.shellId), { timeout: 15_000 }).toContain('heard-after-app');

        await stopServe(serve);
        expect(alive(agent.pid)).toBe(false);
        restarted = await startServe({ ...where.home, env: where.env }, ['--room', where.room]);
        const url = restarted.mcpUrl;
        await expect.poll(() => win2.page.locator('.endpoint').innerText().catch(() => ''), { timeout: 30_000 }).toBe(url);
        await connected(win2.page);
        await win2.page.getByRole('button', { name: /Terminals/ }).click();
        await expect.poll(() => win2.page.locator(`.shell-item[data-shell-id="${agent.shellId}"]`).count()).toBe(0);
        expect(next.exitCode).toBeNull();
        expect(next.stderr).toMatch(/closed the window's connection/);

        // the room process stops for good (the service uninstalled): after waiting for it, the app opens the room
        await stopServe(restarted);
        await expect.poll(() => win2.page.locator('.endpoint').innerText().catch(() => ''), { timeout: 40_000 }).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        await expect.poll(() => win2.page.locator('.endpoint').innerText().catch(() => url), { timeout: 40_000 }).not.toBe(url);
        await connected(win2.page);
        expect(endpointOf(where).endpoint).toBe(new URL('/', await win2.page.locator('.endpoint').innerText()).toString());
      } finally {
        await next.quit();
      }
    } finally {
      await desktop.quit();
      await stopServe(serve);
      if (restarted) await stopServe(restarted);
      where.home.cleanup();
    }
  }, 120_000);

  it('with the room installed as the login service (commonroom service install, systemctl stand-in), the app shows the service\'s room; quitting the app ends nothing, uninstalling ends the room', async () => {
    const t = standinHome();
    const room = path.join(t.home.root, 'work', 'room.md');
    fs.mkdirSync(path.dirname(room));
    const where: DesktopRoom = { home: t.home, room, userData: path.join(t.home.root, 'electron-user-data'), env: { ...t.env, COMMONROOM_ROOM: room } };
    let desktop: ReturnType<typeof launchDesktop> | undefined;
    try {
      expect(commonroom(t.env, ['service', 'install', '--room', room]).status).toBe(0);
      await expect.poll(() => JSON.parse(commonroom(t.env, ['service', 'status', '--json']).stdout).url, { timeout: 20_000 }).toMatch(/\/mcp$/);
      const service = JSON.parse(commonroom(t.env, ['service', 'status', '--json']).stdout) as { url: string; pid: number };
      desktop = launchDesktop(browser, where);
      const win = await desktop.firstWindow();
      await connected(win.page);
      await expect.poll(() => win.page.locator('.endpoint').innerText()).toBe(service.url);
      const agent = await startListeningAgent(where);
      await shellListed(win.page, agent.shellId);
      await expect.poll(() => terminalText(win.page, agent.shellId), { timeout: 15_000 }).toContain('agent-listening');
      expect(await desktop.quit()).toBe(0);
      expect(desktop.dialogs).toEqual([]);
      expect(alive(service.pid) && alive(agent.pid)).toBe(true);
      expect(commonroom(t.env, ['service', 'uninstall']).status).toBe(0);
      expect(alive(service.pid) || alive(agent.pid)).toBe(false);
    } finally {
      await desktop?.quit();
      commonroom(t.env, ['service', 'uninstall']);
      t.home.cleanup();
    }
  }, 120_000);

  it('a serving room process that refuses the window (our operator token is not its own) is said in the window, not retried', async () => {
    const where = desktopRoom();
    const serve = await startServe({ ...where.home, env: where.env }, ['--room', where.room]);
    // a token file that is not the room's token (as after the room rotated it while this account's copy lagged)
    fs.writeFileSync(serve.tokenFile, 'cr_not-the-operator-token\n', { mode: 0o600 });
    const desktop = launchDesktop(browser, where);
    try {
      const win = await desktop.firstWindow();
      const notice = win.page.getByTestId('room-unavailable');
      await expect.poll(() => notice.innerText().catch(() => ''), { timeout: 20_000 }).toMatch(/\S/);
      await notice.getByText('What the room said').click();
      expect(await notice.innerText()).toMatch(/could not be reached: the room process refused the window's connection \(HTTP 401\)/);
      expect(desktop.exitCode).toBeNull();
      expect(serve.proc.exitCode).toBeNull();
      // once: the reloaded window is told why, and no new connection is tried
      expect(desktop.stderr.match(/refused the window's connection/g)).toHaveLength(1);
    } finally {
      await desktop.quit();
      await stopServe(serve);
      where.home.cleanup();
    }
  }, 120_000);
});
