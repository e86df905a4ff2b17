/**
 * Watching never resizes an agent's shell: the agent's programs keep the size the agent gave the PTY while a
 * phone-sized page watches it (the panel scrolls), until the person takes the size over ("Fit to panel"). A
 * shell the person opened follows the panel as before. In Chromium against a real room, the agent a real MCP
 * SDK client; the size read by `stty size` inside the shell. Needs `npm run build`.
 */
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/env';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let agent: Client;
const pageErrors: string[] = [];

beforeAll(async () => {
  room = await startUiRoom({ pageErrors });
  agent = room.agents[0] as Client;
}, 60_000);
afterAll(() => room?.close());

/** What `stty size` says inside the shell now (rows cols), run by the agent. */
async function sttySize(shellId: string): Promise<string> {
  const r = await callTool<{ output: string }>(agent, 'shell_run', { shellId, command: 'stty size', timeoutMs: 10_000 });
  return r.output.trim();
}

describe("a shell's size", () => {
  it("is its owner's: a phone watching an agent's shell leaves it 100x30, until the person takes it over", { timeout: 60_000 }, async () => {
    const { page } = room;
    await page.setViewportSize({ width: 390, height: 844 });
    const { shell } = await callTool<{ shell: { id: string } }>(agent, 'shell_open', { name: 'agent-top', shell: '/bin/bash', args: ['--norc', '--noprofile'], env: { PS1: '$ ' }, cols: 100, rows: 30 });
    await page.getByRole('button', { name: 'Terminals' }).click();
    await page.locator(`.shell-item[data-shell-id="${shell.id}"]`).click();
    await expect.poll(() => page.getByTestId('shell-size').innerText()).toMatch(/100×30/);
    // the page has had time to fit and would have resized by now: the PTY is as the agent made it
    await page.waitForTimeout(500);
    expect(await sttySize(shell.id)).toBe('30 100');
    await page.screenshot({ path: path.join(REPO, 'test-output', 'screens', 'terminals-phone-agent-shell.png') });

    await page.getByTestId('take-over-size').click();
    await expect.poll(() => sttySize(shell.id), { timeout: 10_000 }).not.toBe('30 100');
    const [rows, cols] = (await sttySize(shell.id)).split(' ').map(Number);
    expect(cols).toBeLessThan(100); // the phone's panel is narrower
    expect(rows).toBeGreaterThan(0);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(pageErrors).toEqual([]);
  });

  it("of a revoked agent is marked in the list (it may still run: the person decides)", { timeout: 30_000 }, async () => {
    const { page, runner } = room;
    const { shells } = await runner.engine.call(runner.engine.operator(), 'shell_list', {});
    const mine = shells.find((s) => s.name === 'agent-top');
    await runner.engine.call(runner.engine.operator(), 'participant_revoke', { name: 'agent' });
    await page.getByRole('button', { name: 'Agents' }).click();
    await page.getByRole('button', { name: 'Terminals' }).click();
    const item = page.locator(`.shell-item[data-shell-id="${mine?.id}"]`);
    await expect.poll(() => item.getByTestId('owner-revoked').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator('.shell-item').getByTestId('owner-revoked').count()).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  it('of a shell the person opened follows the panel', { timeout: 60_000 }, async () => {
    const { page } = room;
    await page.getByRole('button', { name: 'Terminals' }).click();
    await page.getByTestId('new-shell').click();
    const selected = page.locator('.shell-item.selected');
    await expect.poll(() => selected.getAttribute('data-shell-id')).not.toBeNull();
    const id = (await selected.getAttribute('data-shell-id')) as string;
    await expect.poll(async () => (await room.runner.engine.call(room.runner.engine.operator(), 'shell_list', {})).shells.find((s) => s.id === id)?.cols, { timeout: 10_000 }).not.toBe(120);
    expect(await page.getByTestId('take-over-size').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
