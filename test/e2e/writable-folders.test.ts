/**
 * The Agents screen's writable folders (issue 40, Deliver 3), in real Chromium through the runner's own door:
 * each agent shows what it always writes and the folders the person added; adding one there stores its real
 * path, a refused one says why under that agent, removing one asks first, and a change made elsewhere
 * (`ce`, another window) shows up without a reload. Needs `npm run build`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { outputFile } from './helpers/open-ui';
import { startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let runner: RunningRoom;
let page: Page;
let work: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['claude-code', 'codex-reviewer'] });
  ({ runner, page } = room);
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-folders-ui-')));
}, 60_000);
afterAll(async () => {
  await room?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const agentFolders = (name: string) => page.locator(`[data-agent-folders="${name}"]`);
const shownFolders = (name: string) => agentFolders(name).locator('[data-folder]').evaluateAll((els) => els.map((e) => e.getAttribute('data-folder')));

describe('writable folders on the Agents screen', () => {
  it('adds a folder, refuses / with the reason, follows a change made elsewhere live, removes one after asking', async () => {
    const site = path.join(work, 'site');
    const docs = path.join(work, 'docs');
    fs.mkdirSync(site);
    fs.mkdirSync(docs);
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Agents/ }).click();
    const card = page.getByRole('region', { name: 'Writable folders' });
    await expect.poll(() => card.locator('[data-agent-folders]').count()).toBe(2);
    expect(await shownFolders('claude-code')).toEqual([]);

    // added from the screen
    await agentFolders('claude-code').getByLabel('A folder claude-code may write').fill(site);
    await agentFolders('claude-code').getByRole('button', { name: 'Let it write' }).click();
    await expect.poll(() => shownFolders('claude-code')).toEqual([site]);
    expect(await agentFolders('claude-code').getByLabel('A folder claude-code may write').inputValue()).toBe('');
    expect(runner.engine.room.participants.writableFolders('claude-code')).toEqual([site]);

    // refused, with what to give instead, under that agent
    await agentFolders('codex-reviewer').getByLabel('A folder codex-reviewer may write').fill('/');
    await agentFolders('codex-reviewer').getByRole('button', { name: 'Let it write' }).click();
    await expect.poll(() => agentFolders('codex-reviewer').getByRole('alert').innerText()).toMatch(/whole file system: give the one folder/);
    expect(await shownFolders('codex-reviewer')).toEqual([]);

    // a change made elsewhere (ce, another window) shows without a reload
    await runner.engine.call(runner.engine.operator(), 'participant_folders', { name: 'claude-code', add: docs });
    await runner.engine.call(runner.engine.operator(), 'participant_folders', { name: 'codex-reviewer', add: docs });
    await expect.poll(() => shownFolders('claude-code')).toEqual([site, docs]);
    await expect.poll(() => shownFolders('codex-reviewer')).toEqual([docs]);
    await page.setViewportSize({ width: 1280, height: 1000 });
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: outputFile('agents-writable-folders.png'), fullPage: true });

    // removed after asking
    // kept: nothing changes
    await agentFolders('claude-code').getByRole('button', { name: `Stop claude-code writing ${site}` }).click();
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Keep it' }).click();
    await expect.poll(() => page.getByTestId('confirm-dialog').count()).toBe(0);
    expect(runner.engine.room.participants.writableFolders('claude-code')).toEqual([site, docs]);
    await agentFolders('claude-code').getByRole('button', { name: `Stop claude-code writing ${site}` }).click();
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Stop writing' }).click();
    await expect.poll(() => shownFolders('claude-code')).toEqual([docs]);
    expect(runner.engine.room.participants.writableFolders('claude-code')).toEqual([docs]);
    expect(pageErrors).toEqual([]);
  });
});
