/**
 * History and Activity in real Chromium through the runner's own door, a room filled by agents played by real
 * MCP SDK clients (issue 35, items 6 and 7): ended handoffs with the decision, its reason or note and who made
 * it, filtered by how they ended, who took part and text; Activity back to the start of what the room keeps
 * (Show older), filtered by time, kind, participant and text, naming subjects and crediting a graph's stages
 * to who started it, shell events, and a stage's event opening its own graph. Screenshots at 1440 and 1024
 * wide, light and dark, under test-output/. Needs `npm run build`.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import type { RunningRoom } from '../../src-main/server/runner';
import { BASH } from '../engine/shells/helpers';
import { outputFile } from './helpers/open-ui';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let runner: RunningRoom;
let page: Page;
let agent: Client;
let long: Client;
const pageErrors: string[] = [];
const LONG_AGENT = 'release-engineering-agent-on-the-build-machine-with-a-long-name';
const LONG_SUMMARY = 'Migrate every service of the payments platform to the new deployment pipeline, keeping the old one running until all of them are green';
const ids: Record<string, string> = {};

const go = (screen: RegExp) => page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: screen }).click();
const op = () => runner.engine.operator();

async function graphEnded(graphId: string): Promise<void> {
  while (!/completed|failed/.test((await runner.engine.call(op(), 'tasks_status', { graphId })).graph.state)) await new Promise((r) => setTimeout(r, 100));
}

/** The screen at 1440×900 and 1024×640 in light and dark (pictures for a person, not assertions). */
async function shoot(name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [[1440, 900], [1024, 640]] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(250); // layout settles
      await page.screenshot({ path: outputFile(`hist-${name}-${scheme}-${width}.png`) });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['agent-a', LONG_AGENT] });
  ({ runner, page } = room);
  [agent, long] = room.agents as [Client, Client];
  const finished = async (summary: string, by: Client = long) => {
    const { handoff } = await callTool<{ handoff: HandoffView }>(agent, 'handoff_create', { summary, to: by === long ? LONG_AGENT : 'agent-a' });
    await callTool(by, 'handoff_accept', { handoffId: handoff.id });
    await callTool(by, 'handoff_complete', { handoffId: handoff.id, result: `## Done\n\n${summary}: finished.` });
    return handoff.id;
  };
  ids.approved = await finished('Write the release notes for 2.4');
  await runner.engine.call(op(), 'handoff_approve', { handoffId: ids.approved, reason: 'Reads well; ship it with the 2.4 tag.' });
  ids.rejected = await finished(LONG_SUMMARY);
  await runner.engine.call(op(), 'handoff_reject', { handoffId: ids.rejected, reason: 'The billing service still deploys through the old pipeline only: move it too, then complete again.' });
  const { handoff } = await callTool<{ handoff: HandoffView }>(long, 'handoff_create', { summary: 'Tidy the build scripts' });
  ids.cancelled = handoff.id;
  await callTool(long, 'handoff_cancel', { handoffId: handoff.id, reason: 'Not needed after the pipeline move.' });
  // two graphs: a stage's event must open its own graph, not the newest one
  ids.first = (await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'first: lint', stages: [{ id: 'lint', command: ['sh', '-c', 'echo lint broke; exit 2'] }] })).graphId;
  await graphEnded(ids.first);
  // enough events that Activity pages: 240 stages of a fan-out
  const stages = [{ id: 'root', command: 'true' }, ...Array.from({ length: 240 }, (_, i) => ({ id: `leaf-${i}`, command: 'true', dependsOn: ['root'] }))];
  ids.second = (await callTool<{ graphId: string }>(long, 'tasks_run', { name: 'second: a wide fan-out of 240 leaves', maxParallel: 16, stages })).graphId;
  await graphEnded(ids.second);
  const { shell } = await callTool<{ shell: { id: string } }>(agent, 'shell_open', { ...BASH, name: 'agent-a build shell' });
  await callTool(agent, 'shell_close', { shellId: shell.id });
}, 180_000);

afterAll(() => room?.close());

describe('History', () => {
  it('lists ended handoffs with how each ended, who ended it and the reason', async () => {
    await go(/History/);
    const items = page.locator('.history-item');
    await expect.poll(() => items.count()).toBe(3);
    expect(await items.nth(0).innerText()).toMatch(/cancelled[\s\S]*Tidy the build scripts[\s\S]*by release-engineering[\s\S]*Not needed after the pipeline move/);
    expect(await items.nth(1).innerText()).toMatch(/rejected[\s\S]*by operator/);
    await page.locator(`.history-item[data-handoff-id="${ids.rejected}"]`).click();
    const detail = page.getByTestId('history-detail');
    expect(await detail.getByTestId('history-ending').innerText()).toMatch(/^rejected by operator/);
    expect(await detail.getByTestId('history-reason').innerText()).toContain('The billing service still deploys');
    expect(await detail.getByTestId('result').innerText()).toContain('finished.');
    await shoot('history');
  });

  it('filters by how it ended, by participant and by text', async () => {
    const items = page.locator('.history-item');
    await page.getByLabel('Filter by how it ended').selectOption('approved');
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.first().getAttribute('data-handoff-id')).toBe(ids.approved);
    await page.getByLabel('Filter by how it ended').selectOption('');
    await page.getByLabel('Filter by participant').selectOption('agent-a');
    await expect.poll(() => items.count()).toBe(2); // it owned the two it handed on; not the cancelled one
    await page.getByLabel('Filter by participant').selectOption('');
    await page.getByLabel('Search summaries').fill('payments');
    await expect.poll(() => items.count()).toBe(1);
    await page.getByLabel('Filter by time').selectOption('1h');
    await expect.poll(() => items.count()).toBe(1);
    await page.getByLabel('Search summaries').fill('no such handoff');
    await expect.poll(() => page.getByText('No ended handoffs match.').count()).toBe(1);
    await page.getByLabel('Search summaries').fill('');
    await page.getByLabel('Filter by time').selectOption('all');
  });

  it('pages with Load more; a handoff ending meanwhile comes first and the list keeps its length', async () => {
    for (let i = 0; i < 55; i++) {
      const { handoff } = await callTool<{ handoff: HandoffView }>(long, 'handoff_create', { summary: `Batch job ${i}` });
      await callTool(long, 'handoff_cancel', { handoffId: handoff.id, reason: `batch ${i} not needed` });
    }
    const items = page.locator('.history-item');
    await expect.poll(() => items.count()).toBe(50);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => items.count()).toBe(58);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    const { handoff } = await callTool<{ handoff: HandoffView }>(long, 'handoff_create', { summary: 'One more, ended while the list is open' });
    await callTool(long, 'handoff_cancel', { handoffId: handoff.id });
    await expect.poll(() => items.first().getAttribute('data-handoff-id')).toBe(handoff.id);
    // as many as were paged in, not one page: the oldest moved to the next page, which Load more reads
    expect(await items.count()).toBe(58);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => items.count()).toBe(59);
  });
});

describe('Activity', () => {
  it('pages back to the start of what the room keeps', async () => {
    await go(/Activity/);
    const rows = page.locator('.activity li');
    await expect.poll(() => rows.count()).toBe(200);
    while ((await page.getByTestId('activity-start').count()) === 0) await page.getByRole('button', { name: /Show older/ }).click();
    // every event the room keeps, the oldest (the room's creation) last
    let kept = 0;
    for (let cursor: string | undefined; ; ) {
      const p = await runner.engine.call(op(), 'workspace_history', { limit: 200, ...(cursor ? { cursor } : {}) });
      kept += p.events.length;
      cursor = p.nextCursor;
      if (!p.more) break;
    }
    expect(kept).toBeGreaterThan(480);
    expect(await rows.count()).toBe(kept);
    expect(await rows.last().getAttribute('data-event-kind')).toBe('room.created');
  });

  it("names what each event is about, credits a graph's stages to who started it, and shows shells", async () => {
    await page.getByLabel('Filter by kind').selectOption('graph.stage');
    // the wide graph's stages are the newest 700 of them: the older graph's are found by its name
    await page.getByLabel('Search events').fill('first: lint');
    const stage = page.locator('.activity li[data-event-kind="graph.stage"]').filter({ hasText: 'lint · first: lint' }).first();
    await stage.waitFor();
    expect(await stage.locator('.ev-actor').innerText()).toBe('agent-a');
    await page.getByLabel('Search events').fill('');
    await page.getByLabel('Filter by kind').selectOption('shell');
    const shells = page.locator('.activity li');
    await expect.poll(() => shells.count()).toBe(2);
    expect(await shells.nth(0).innerText()).toMatch(/shell\.ended[\s\S]*agent-a[\s\S]*agent-a build shell/);
    expect(await shells.nth(1).innerText()).toMatch(/shell\.opened[\s\S]*agent-a build shell/);
    await page.getByLabel('Filter by kind').selectOption('handoff');
    await page.getByLabel('Search events').fill('release notes');
    await expect.poll(() => page.locator('.activity li').count()).toBeGreaterThan(3);
    expect(await page.locator('.activity li').first().innerText()).toContain('Write the release notes for 2.4');
    await page.getByLabel('Search events').fill('');
    await page.getByLabel('Filter by kind').selectOption('');
    await page.getByLabel('Filter by participant').selectOption(LONG_AGENT);
    await page.getByLabel('Filter by time').selectOption('1h');
    await expect.poll(async () => (await page.locator('.activity li .ev-actor').allInnerTexts()).every((t) => t === LONG_AGENT)).toBe(true);
    await shoot('activity');
    await page.getByLabel('Filter by participant').selectOption('');
    await page.getByLabel('Filter by time').selectOption('all');
  });

  it("a stage's event opens its own graph and stage, not the newest graph", async () => {
    await page.getByLabel('Filter by kind').selectOption('graph.stage');
    await page.getByLabel('Search events').fill('first: lint');
    await page.locator('.activity li').first().getByRole('button').click();
    await expect.poll(() => page.locator('.graph-row.active').getAttribute('data-graph-id')).toBe(ids.first);
    await expect.poll(() => page.locator('.stage-panel-head h3').innerText()).toBe('lint');
    await expect.poll(() => page.getByTestId('stage-log').innerText()).toContain('lint broke');
  });

  it("an ended handoff's event opens it in History with its decision, though no page loaded there holds it", async () => {
    await go(/Activity/);
    await page.getByLabel('Filter by kind').selectOption('handoff.approved');
    await page.getByLabel('Search events').fill('');
    const approved = page.locator('.activity li').first();
    expect(await approved.innerText()).toContain('Write the release notes for 2.4');
    await approved.getByRole('button').click();
    // 57 handoffs ended after it: it is past History's first page of 50
    await expect.poll(() => page.locator('main.screen').getAttribute('aria-label')).toBe('history');
    await expect.poll(() => page.locator(`.history-item[data-handoff-id="${ids.approved}"]`).count()).toBe(0);
    const detail = page.getByTestId('history-detail');
    expect(await detail.getByTestId('history-ending').innerText()).toMatch(/^approved by operator/);
    expect(await detail.getByTestId('history-reason').innerText()).toBe('Reads well; ship it with the 2.4 tag.');
    // a handoff's other events open the inbox, which shows it whatever its state
    await go(/Activity/);
    await page.getByLabel('Filter by kind').selectOption('handoff.created');
    await page.getByLabel('Search events').fill('release notes');
    await page.locator('.activity li').first().getByRole('button').click();
    await expect.poll(() => page.locator('main.screen').getAttribute('aria-label')).toBe('inbox');
    expect(pageErrors).toEqual([]);
  });
});
