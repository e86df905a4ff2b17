/**
 * The terminals screen with a populated room (an agent's shells, one with a long name, one that exited, and
 * the person's own), saved as screenshots in light and dark under test-output/ for a person to look at; and
 * the link dropping and coming back, with the page showing "reconnecting" and then the engine's current state.
 * Needs `npm run build`.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShellView } from '../../src-main/common/methods/shells';
import type { RunningRoom } from '../../src-main/server/runner';
import { BASH } from '../engine/shells/helpers';
import { outputFile, uiDoor } from './helpers/open-ui';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';
import { terminalText } from './helpers/page-terminal';

let room: UiRoom;
let runner: RunningRoom;
let agent: Client;
let page: Page;
const pageErrors: string[] = [];
const LONG_NAME = 'npm run test --watch packages/room-engine/src/shells/long-suite'; // 63 of 64 chars

const openAsAgent = async (args: Record<string, unknown>) => {
  const { shell } = await callTool<{ shell: ShellView }>(agent, 'shell_open', { ...BASH, ...args });
  // typed before the first prompt, a command's echo and the prompt would land inside its output
  await callTool(agent, 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: 'PROMPT> ', timeoutMs: 30_000 } });
  return shell;
};
const typeAsAgent = (shellId: string, text: string) => agent.callTool({ name: 'shell_io', arguments: { shellId, text, wait: { until: 'idle', idleMs: 200 } } });

beforeAll(async () => {
  // a small scrollback ring, so a shell's early output is gone by the time the page attaches
  room = await startUiRoom({ pageErrors, agents: ['builder-agent'], limits: { shellScrollbackBytes: 16 * 1024 } });
  ({ runner, page } = room);
  agent = room.agents[0] as Client;
}, 60_000);

afterAll(() => room?.close());

describe('the terminals screen, populated', () => {
  it('shows an empty state before any shell, then every shell with its owner and status', async () => {
    await page.getByText('No shells yet').waitFor();
    const build = await openAsAgent({ name: 'build' });
    const long = await openAsAgent({ name: LONG_NAME });
    const done = await openAsAgent({ name: 'lint' });
    await typeAsAgent(done.id, 'exit 3\n');
    await typeAsAgent(long.id, "printf '\\033[32m✓\\033[0m %s\\n' 'shells open and close' 'output is paced' 'resize reaches the PTY'; printf '\\033[31m✗\\033[0m flaky: retry\\n'\n");
    await typeAsAgent(build.id, "printf 'compiling %s\\n' engine mcp renderer; printf '\\033[1mbuilt in 4.2s\\033[0m\\n'\n");

    // the person's own shell, from the button
    await page.getByTestId('new-shell').click();
    await expect.poll(() => page.locator('.shell-item').count()).toBe(4);
    const operatorShell = (await runner.engine.call(runner.engine.operator(), 'shell_list', {})).shells.find((s) => s.owner === runner.engine.operator().name);
    expect(operatorShell).toBeDefined();
    await expect.poll(() => page.locator('.shell-item.selected').getAttribute('data-shell-id')).toBe(operatorShell?.id);

    await expect.poll(() => page.locator(`.shell-item[data-shell-id="${done.id}"]`).innerText()).toContain('exit 3');
    const longItem = page.locator(`.shell-item[data-shell-id="${long.id}"] .shell-name`);
    expect(await longItem.getAttribute('title')).toBe(LONG_NAME);
    // the long name is cut with an ellipsis, not wrapped or overflowing the list
    expect(await longItem.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);

    await page.locator(`.shell-item[data-shell-id="${long.id}"]`).click();
    await expect.poll(() => terminalText(page, long.id)).toContain('resize reaches the PTY');
    await page.getByTestId('terminal').click();
    await page.keyboard.type('echo typed by the person');

    // an agent's shell is shown at the size the agent gave it, whatever the window (watching never resizes it)
    const screenWidth = async () => (await page.locator('.terminal-host .xterm-screen').boundingBox())?.width ?? 0;
    await expect.poll(screenWidth).toBeGreaterThan(0);
    const agentWidth = await screenWidth();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [width, height] of [[1280, 800], [1920, 1080]] as const) {
        await page.setViewportSize({ width, height });
        await expect.poll(screenWidth).toBe(agentWidth);
        await page.waitForTimeout(150); // let the fit settle before the picture (a screenshot, not an assertion)
        await page.screenshot({ path: outputFile(`terminals-${scheme}-${width}x${height}.png`) });
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('button', { name: 'Inbox' }).click();
    await page.getByText('Nothing waits on you').waitFor();
    await page.screenshot({ path: outputFile('inbox-empty-light.png') });
    await page.getByRole('button', { name: 'Terminals' }).click();
  });

  it('a shell whose early output left the scrollback shows where it was cut', async () => {
    const chatty = await openAsAgent({ name: 'chatty' });
    await agent.callTool({ name: 'shell_io', arguments: { shellId: chatty.id, text: "seq 1 10000; printf 'SEQ-%s\\n' DONE\n", wait: { until: 'match', pattern: 'SEQ-DONE' } } });
    await page.locator(`.shell-item[data-shell-id="${chatty.id}"]`).click();
    await expect.poll(() => terminalText(page, chatty.id, 5000)).toContain('SEQ-DONE');
    const text = await terminalText(page, chatty.id, 5000);
    expect(text).toContain('earlier output is gone');
    expect(text).not.toMatch(/^1$/m); // the first lines really are gone
    await page.getByText('scrollback truncated').waitFor();

    // closing it from the page ends it in the room
    await page.getByRole('button', { name: 'Close' }).click();
    await page.locator(`.shell-item[data-shell-id="${chatty.id}"]`).waitFor({ state: 'detached' });
    const left = (await runner.engine.call(runner.engine.operator(), 'shell_list', {})).shells.map((s) => s.id);
    expect(left).not.toContain(chatty.id);
  });

  it('a dropped link shows "reconnecting", and when it is back the page shows what changed meanwhile', async () => {
    // a door that can drop and refuse connections at will, over the same engine
    const door = await uiDoor(runner);
    await page.goto(door.url);
    await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor();
    door.setAccepting(false);
    door.dropConnections();
    await page.getByTestId('reconnecting').waitFor();
    expect(await page.getByTestId('link-state').innerText()).toBe('reconnecting');
    const meanwhile = await openAsAgent({ name: 'opened while you were away' });
    await page.screenshot({ path: outputFile('terminals-reconnecting-light.png') });
    door.setAccepting(true);
    await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor({ timeout: 20_000 });
    await page.locator(`.shell-item[data-shell-id="${meanwhile.id}"]`).waitFor();
    expect(await page.getByTestId('reconnecting').count()).toBe(0);
  });

  it('the page raised no errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
