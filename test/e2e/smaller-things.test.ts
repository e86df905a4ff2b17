/**
 * The smaller things of issue 46 (item 8), in real Chromium against a real room: the New agent dialog (modal,
 * focus in and back, Escape; recent folders offered; a name), a tty stage's shell named by its stage and graph
 * with a way back to the graph, names not cut at 1024, Activity's kind beside (not over) who did it, a task list
 * with checkboxes and no bullets, the review's plain words. Screenshots to /work/shots/wt-screens (else
 * test-output/). Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { outputFile } from './helpers/open-ui';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

const SHOTS = '/work/shots/wt-screens';
const shot = (name: string) => (fs.existsSync(SHOTS) ? path.join(SHOTS, name) : outputFile(name));

let room: UiRoom;
let page: Page;
let dir: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['lead', 'dev'] });
  ({ page } = room);
  dir = fs.mkdtempSync(path.join(path.dirname(room.runner.engine.room.location.markdownPath), 'work-'));
}, 60_000);
afterAll(() => room?.close());

const op = () => room.runner.engine.operator();

describe('the smaller things', () => {
  it('New agent is a dialog: modal, focus in and back, Escape; it offers recent folders and takes a name', { timeout: 60_000 }, async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('button', { name: 'Terminals' }).click();
    const open = page.getByTestId('new-agent');
    await open.click();
    const dialog = page.getByRole('dialog', { name: 'New agent' });
    await dialog.waitFor();
    expect(await dialog.evaluate((d) => d.matches(':modal'))).toBe(true);
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest('dialog')))).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('new-agent');

    await open.click();
    await dialog.getByLabel('Another command').check();
    await dialog.locator('#agent-command').fill('/bin/sleep 600');
    await dialog.getByLabel('Folder', { exact: true }).fill(dir);
    await dialog.getByTestId('agent-name').fill('reviewer');
    for (const [width, height] of [[1440, 900], [1024, 768], [390, 844]] as const) {
      await page.setViewportSize({ width, height });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: shot(`new-agent-dialog-${width}-${scheme}.png`) });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
    await dialog.getByTestId('start-agent').click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(async () => (await room.runner.engine.call(op(), 'agent_list', {})).agents.map((a) => a.participant)).toContain('reviewer');
    // the folder is offered next time
    await open.click();
    await expect.poll(() => dialog.getByRole('button', { name: path.basename(dir), exact: false }).count()).toBeGreaterThan(0);
    await dialog.getByRole('button', { name: path.basename(dir), exact: false }).first().click();
    expect(await dialog.locator('#agent-cwd').inputValue()).toBe(dir);
    await page.keyboard.press('Escape');
    expect(pageErrors).toEqual([]);
  });

  it("a tty stage's shell is named by its stage and graph, opens its graph, and a long name is whole at 1024", { timeout: 60_000 }, async () => {
    const run = await room.runner.engine.call(op(), 'tasks_run', { name: 'nightly build', stages: [{ id: 'package-installers', command: 'echo packaging; sleep 600', tty: true }] });
    await callTool(room.agents[1] as Client, 'shell_open', { name: 'a dev server with a name of forty chars', shell: '/bin/sh' });
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Terminals' }).click();
    const item = page.locator('.shell-item', { hasText: 'package-installers · nightly build' });
    await item.waitFor({ timeout: 15_000 });
    // no name in the list is cut: each fits its (up to two) lines
    const cut = await page.locator('.shell-item .shell-name').evaluateAll((els) => els.filter((e) => e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent));
    expect(cut).toEqual([]);
    await item.click();
    expect(await page.locator('.shell-title h3').innerText()).toBe('package-installers · nightly build');
    const owner = page.locator('.shell-facts > span').first();
    expect(await owner.evaluate((e) => e.scrollWidth <= e.clientWidth + 1)).toBe(true);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: shot(`stage-shell-named-1024-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByTestId('open-stage-graph').click();
    await expect.poll(() => page.locator('.graph-title h2').innerText()).toBe('nightly build');
    await room.runner.engine.call(op(), 'tasks_cancel', { graphId: run.graphId });
    expect(pageErrors).toEqual([]);
  });

  it("Activity's kind stays in its column; a task list shows checkboxes and no bullets; the review speaks plainly", { timeout: 60_000 }, async () => {
    const [lead, dev] = room.agents as [Client, Client];
    const { handoff } = await callTool<{ handoff: HandoffView }>(lead, 'handoff_create', { summary: 'Tidy up', to: 'dev' });
    await callTool(dev, 'handoff_accept', { handoffId: handoff.id });
    const asked = (await callTool<{ handoff: HandoffView }>(lead, 'handoff_create', { summary: 'A question', to: 'dev' })).handoff;
    await callTool(dev, 'handoff_accept', { handoffId: asked.id });
    await callTool(dev, 'handoff_request_input', { handoffId: asked.id, requests: { ok: { message: 'Fine?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', title: 'OK' } } } } } });
    await callTool(dev, 'handoff_complete', { handoffId: handoff.id, result: '## Done\n\n- [x] removed the dead code\n- [ ] the docs (next time)\n' });
    for (const width of [1440, 1024]) {
      await page.setViewportSize({ width, height: 800 });
      await page.getByRole('button', { name: 'Activity' }).click();
      await page.locator('.activity li .ev-kind').first().waitFor();
      const overlaps = await page.locator('.activity li').evaluateAll((lis) =>
        lis.flatMap((li) => {
          const kind = li.querySelector('.ev-kind')?.getBoundingClientRect();
          const actor = li.querySelector('.ev-actor')?.getBoundingClientRect();
          const text = li.querySelector('.ev-kind') as HTMLElement | null;
          return kind && actor && text && (kind.right > actor.left + 1 || text.scrollWidth > text.clientWidth + 1) ? [text.textContent] : [];
        }),
      );
      expect(overlaps, `${width}`).toEqual([]);
      await page.screenshot({ path: shot(`activity-kinds-${width}.png`) });
    }
    await page.getByRole('button', { name: /Inbox/ }).click();
    await page.locator(`.inbox-item[data-handoff-id="${handoff.id}"]`).click();
    const items = page.locator('.markdown li');
    await items.first().waitFor();
    expect(await items.evaluateAll((lis) => lis.map((li) => getComputedStyle(li).listStyleType))).toEqual(['none', 'none']);
    expect(await page.locator('.markdown li input[type="checkbox"]').count()).toBe(2);
    await page.screenshot({ path: shot('task-list-1440.png') });
    expect(await page.locator('body').innerText()).not.toMatch(/tasks_run|handoffId/);
    expect(pageErrors).toEqual([]);
  });
});
