/**
 * The desktop app's core tasks through the Electron harness (test/harness/electron): the built main process,
 * preload and renderer, with only Electron's own modules standing in. The window reaches the room over the
 * preload's bridge; an agent (a real MCP SDK client over HTTP) opens a shell the person types into; a graph
 * is drawn and a failed stage's log opened; a result raises a native notification whose click brings the
 * handoff up, and approving it is what the agent reads. Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesktopApp, HarnessWindow } from '../harness/electron/desktop';
import { outputFile } from '../e2e/helpers/open-ui';
import { REPO } from '../helpers/env';
import { terminalText } from '../e2e/helpers/page-terminal';
import { connectAgent, desktopRoom, endpointOf, launchBrowser, launchDesktop, tool, type DesktopRoom } from './helpers';

let browser: Browser;
let where: DesktopRoom;
let desktop: DesktopApp;
let win: HarnessWindow;
let page: Page;
let agent: Client;
let asker: Client;
const pageErrors: string[] = [];
const workers: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  where = desktopRoom();
  desktop = launchDesktop(browser, where);
  win = await desktop.firstWindow();
  page = win.page;
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('worker', (w) => workers.push(w.url()));
  await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor({ timeout: 20_000 });
  agent = await connectAgent(where, 'worker');
  asker = await connectAgent(where, 'asker');
}, 90_000);

afterAll(async () => {
  await agent?.close();
  await asker?.close();
  await desktop?.quit();
  await browser?.close();
  where?.home.cleanup();
});

describe('the desktop window, through the real preload and main process', () => {
  it('loads the built renderer from file:// and shows "connected" over the bridge, with no preload error', async () => {
    expect(page.url()).toMatch(/^file:\/\/.*\/out\/renderer\/index\.html$/);
    expect(win.preloadErrors).toEqual([]);
    // the bridge is what contextBridge leaves: frozen, with only the interface's functions
    const shape = await page.evaluate(() => {
      const bridge = (window as unknown as { commonroom: Record<string, unknown> }).commonroom;
      return { keys: Object.keys(bridge).sort(), frozen: Object.isFrozen(bridge), types: Object.values(bridge).map((v) => typeof v) };
    });
    expect(shape).toEqual({ keys: ['chooseRoom', 'notify', 'onMessage', 'send'], frozen: true, types: ['function', 'function', 'function', 'function'] });
    // the page never sees Node or ipcRenderer
    expect(await page.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe('undefined');
    await page.screenshot({ path: outputFile('desktop-connected.png') });
  });

  it("an agent's shell shows up; what the person types reaches it and the agent reads it; the agent's output shows", async () => {
    const { shell } = await tool<{ shell: { id: string } }>(agent, 'shell_open', { name: 'agent build', shell: '/bin/bash', args: ['--norc', '--noprofile'], env: { PS1: 'PROMPT> ' } });
    const item = page.locator(`.shell-item[data-shell-id="${shell.id}"]`);
    await item.click({ timeout: 15_000 });
    await expect.poll(() => terminalText(page, shell.id), { timeout: 15_000 }).toContain('PROMPT>');
    await page.getByTestId('terminal').click();
    await page.keyboard.type('echo typed-by-$((6*7))');
    await page.keyboard.press('Enter');
    await expect
      .poll(async () => (await tool<{ output: string }>(agent, 'shell_io', { shellId: shell.id, cursor: 'start' })).output, { timeout: 15_000 })
      .toContain('typed-by-42');
    await tool(agent, 'shell_io', { shellId: shell.id, text: "printf 'agent-%s\\n' said\n" });
    await expect.poll(() => terminalText(page, shell.id), { timeout: 15_000 }).toContain('agent-said');
    await page.screenshot({ path: outputFile('desktop-terminal.png') });
  });

  it("a graph is drawn and a failed stage's log opens", async () => {
    const { graphId } = await tool<{ graphId: string }>(agent, 'tasks_run', {
      name: 'desktop diamond',
      stages: [
        { id: 'build', command: ['sh', '-c', 'echo built'] },
        { id: 'test', command: ['sh', '-c', 'echo test-out; echo test-broke >&2; exit 3'], dependsOn: ['build'] },
        { id: 'lint', command: ['sh', '-c', 'echo lint-ok'], dependsOn: ['build'] },
        { id: 'ship', command: ['sh', '-c', 'echo ship'], dependsOn: ['test', 'lint'] },
      ],
    });
    await page.getByRole('button', { name: /Graphs/ }).click();
    await page.locator(`.graph-row[data-graph-id="${graphId}"]`).click();
    const node = (id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
    await expect.poll(() => node('test').innerText(), { timeout: 30_000 }).toContain('failed');
    await expect.poll(() => node('ship').innerText()).toContain('skipped');
    await node('test').click();
    await expect.poll(() => page.getByTestId('stage-log').innerText(), { timeout: 15_000 }).toContain('test-broke');
    expect(await page.getByTestId('stage-exit').innerText()).toBe('3');
    // laid out off the main thread: the ELK worker loads from file:// next to the bundle
    const worker = workers.find((u) => /elk-worker[^/]*\.js$/.test(u));
    expect(worker?.startsWith(pathToFileURL(path.join(REPO, 'out/renderer/assets')).toString() + '/')).toBe(true);
    const x = async (id: string) => (await node(id).boundingBox())?.x ?? 0;
    expect(await x('build')).toBeLessThan(await x('test'));
    expect(await x('lint')).toBeLessThan(await x('ship'));
    await page.screenshot({ path: outputFile('desktop-graph-failed-stage.png') });
  });

  it('a result raises a native notification; its click brings the handoff up; approving it is what the agent reads', async () => {
    const { handoff } = await tool<{ handoff: { id: string } }>(asker, 'handoff_create', { summary: 'Ship the release notes', to: 'worker' });
    await tool(agent, 'handoff_accept', { handoffId: handoff.id });
    // the person is on another screen when the result arrives
    await page.getByRole('button', { name: /Terminals/ }).click();
    await tool(agent, 'handoff_complete', { handoffId: handoff.id, result: 'Done: **notes** attached.' });
    await expect.poll(() => desktop.notifications, { timeout: 15_000 }).toEqual([expect.objectContaining({ title: 'A result waits for your approval', body: 'Ship the release notes' })]);
    const before = win.calls.filter((c) => c === 'focus').length;
    desktop.clickNotification(desktop.notifications[0]!.id);
    await expect.poll(() => win.calls.filter((c) => c === 'focus').length).toBeGreaterThan(before);
    const detail = page.locator(`.handoff-detail[data-handoff-id="${handoff.id}"]`);
    await expect.poll(() => detail.innerText(), { timeout: 15_000 }).toContain('Ship the release notes');
    await page.screenshot({ path: outputFile('desktop-inbox-from-notification.png') });
    await detail.getByRole('button', { name: /Approve/ }).click();
    await expect
      .poll(async () => (await tool<{ handoff: { status: string } }>(asker, 'handoff_get', { handoffId: handoff.id })).handoff.status, { timeout: 15_000 })
      .toBe('approved');
    expect(pageErrors).toEqual([]);
  });

  it("an agent the room started that waits for the person raises a native notification naming it; its click brings its terminal up", async () => {
    const { endpoint, token } = endpointOf(where);
    const script = path.join(path.dirname(where.room), 'asks.sh');
    fs.writeFileSync(script, "#!/bin/sh\necho 'about to deploy'\nprintf '\\033]9;Deploy to production?\\007'\nread answer\n", { mode: 0o755 });
    const started = await fetch(new URL('/api/agent_start', endpoint), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client: 'command', command: [script] }),
    });
    const { agent: run } = ((await started.json()) as { result: { agent: { shellId: string; participant: string } } }).result;
    // the person is on another screen when it starts waiting
    await page.getByRole('button', { name: /Graphs/ }).click();
    const asked = () => desktop.notifications.filter((n) => /is waiting for you/.test(n.title));
    await expect.poll(asked, { timeout: 20_000 }).toEqual([expect.objectContaining({ title: `Command (${run.participant}) is waiting for you`, body: 'Deploy to production?' })]);
    const before = win.calls.filter((c) => c === 'focus').length;
    desktop.clickNotification(asked()[0]!.id);
    await expect.poll(() => win.calls.filter((c) => c === 'focus').length).toBeGreaterThan(before);
    await expect.poll(() => page.locator('.shell-item.selected').getAttribute('data-shell-id'), { timeout: 15_000 }).toBe(run.shellId);
    await page.screenshot({ path: outputFile('desktop-terminal-from-notification.png') });
    expect(pageErrors).toEqual([]);
  });
});

