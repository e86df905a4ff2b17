/**
 * A 390-wide phone (issue 35, item 4), in real Chromium against a real room, agents played by real MCP SDK
 * clients: the page fits the width (no sideways scrolling of the page), the screens bar is on top; a long result
 * keeps Approve on screen (the decision bar sticks) and approving reaches the agent, as rejecting with a
 * reason does; a question is answered in
 * its form; an agent's terminal and a graph are readable (not 18 px wide). Needs `npm run build`.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { BASH } from '../engine/shells/helpers';
import { outputFile } from './helpers/open-ui';
import { terminalText } from './helpers/page-terminal';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let asker: Client;
let worker: Client;
let page: Page;
const pageErrors: string[] = [];
const WIDTH = 390;

const get = async (id: string) => (await callTool<{ handoff: HandoffView }>(asker, 'handoff_get', { handoffId: id })).handoff;
const go = (name: string) => page.locator('.sidebar .nav-item', { hasText: name }).click();

/** The page is no wider than the phone: nothing makes it scroll sideways. */
const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);

/** Where `selector`'s box is, against the phone's screen. */
async function onScreen(selector: string): Promise<boolean> {
  const box = await page.locator(selector).boundingBox();
  return box !== null && box.y >= 0 && box.y + box.height <= 844 && box.x >= 0 && box.x + box.width <= WIDTH;
}

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['asker', 'worker'] });
  ({ page } = room);
  [asker, worker] = room.agents as [Client, Client];
  await page.setViewportSize({ width: WIDTH, height: 844 });
}, 60_000);

afterAll(() => room?.close());

describe('on a phone', () => {
  it('approves a long result with Approve on screen', async () => {
    const { handoff } = await callTool<{ handoff: HandoffView }>(asker, 'handoff_create', { summary: 'Write the release notes', to: 'worker' });
    await callTool(worker, 'handoff_accept', { handoffId: handoff.id });
    const long = Array.from({ length: 60 }, (_, i) => `${i + 1}. A change worth a line of its own in the notes`).join('\n');
    await callTool(worker, 'handoff_complete', { handoffId: handoff.id, result: `## Notes\n\n${long}` });
    await go('Inbox');
    await page.locator(`.handoff-detail[data-handoff-id="${handoff.id}"]`).waitFor();
    expect(await pageWidth()).toBeLessThanOrEqual(WIDTH);
    // the screens bar runs across the top, every screen in it reachable
    const NAMES = ['Summary', 'Terminals', 'Graphs', 'Inbox', 'History', 'Agents', 'Schedules', 'Activity'];
    for (const name of NAMES) expect(await onScreen(`.sidebar li:has(.nav-item:text("${name}"))`), name).toBe(true);
    // every name reads whole: none cut off by its cell (the text no wider than the box it sits in)
    const cut = await page.locator('.sidebar .nav-item').evaluateAll((items) =>
      items.filter((el) => el.scrollWidth > el.clientWidth + 1 || Array.from(el.querySelectorAll('*')).some((c) => c.scrollWidth > (c as HTMLElement).clientWidth + 1 && getComputedStyle(c).overflow !== 'visible')).map((el) => el.textContent),
    );
    expect(cut).toEqual([]);
    expect(await page.locator('.sidebar .nav-item').allTextContents()).toHaveLength(NAMES.length);
    await page.screenshot({ path: outputFile('phone-topbar-390.png'), clip: { x: 0, y: 0, width: WIDTH, height: 120 } });
    // scrolled into the middle of the long result, Approve is still on screen
    await page.locator('.markdown li').nth(30).scrollIntoViewIfNeeded();
    expect(await onScreen('.decision-panel button.primary')).toBe(true);
    await page.screenshot({ path: outputFile('phone-approve.png') });
    await page.locator('.decision-panel button.primary').click();
    await page.getByTestId('decision-toast').waitFor();
    expect(await onScreen('[data-testid="decision-toast"]')).toBe(true);
    await expect.poll(async () => (await get(handoff.id)).status, { timeout: 20_000 }).toBe('approved');
  });

  it('rejects with a reason', async () => {
    const { handoff } = await callTool<{ handoff: HandoffView }>(asker, 'handoff_create', { summary: 'Bump the version', to: 'worker' });
    await callTool(worker, 'handoff_accept', { handoffId: handoff.id });
    await callTool(worker, 'handoff_complete', { handoffId: handoff.id, result: 'Bumped to 2.0.0' });
    await page.locator(`.inbox-item[data-handoff-id="${handoff.id}"]`).click();
    await page.getByLabel(/Reason/).fill('A minor bump: 1.1.0');
    expect(await onScreen('.decision-panel button.danger')).toBe(true);
    await page.locator('.decision-panel button.danger').click();
    await expect.poll(async () => (await get(handoff.id)).status, { timeout: 20_000 }).toBe('rejected');
    expect((await get(handoff.id)).decision?.reason).toBe('A minor bump: 1.1.0');
  });

  it('answers a question in its form', async () => {
    const { handoff } = await callTool<{ handoff: HandoffView }>(asker, 'handoff_create', { summary: 'Which region?', to: 'worker' });
    await callTool(worker, 'handoff_accept', { handoffId: handoff.id });
    await callTool(worker, 'handoff_request_input', {
      handoffId: handoff.id,
      requests: { region: { message: 'Pick a region', requestedSchema: { type: 'object', properties: { region: { type: 'string', title: 'Region', enum: ['eu-west', 'us-east'] }, ticket: { type: 'string', title: 'Ticket', pattern: '^OPS-\\d+$' } }, required: ['region'] } } },
    });
    const form = page.locator('form[data-request-key="region"]');
    await form.waitFor();
    expect(await pageWidth()).toBeLessThanOrEqual(WIDTH);
    await form.getByLabel('Region').selectOption('eu-west');
    // the page matches a field's pattern itself (the room matches it again, with RE2)
    await form.getByLabel('Ticket').fill('ticket 12');
    await form.getByRole('button', { name: 'Send answer' }).click();
    await form.locator('[data-field="ticket"] .field-problem').filter({ hasText: '“Ticket” must match the pattern ^OPS-\\d+$' }).waitFor();
    await page.screenshot({ path: outputFile('phone-answer.png') });
    await form.getByLabel('Ticket').fill('OPS-12');
    await form.getByRole('button', { name: 'Send answer' }).click();
    await expect.poll(async () => (await get(handoff.id)).inputAnswers.region?.content).toEqual({ region: 'eu-west', ticket: 'OPS-12' });
  });

  it('shows an agent\'s terminal and a graph wide enough to read', async () => {
    const shell = (await callTool<{ shell: { id: string } }>(worker, 'shell_open', { ...BASH, name: 'agent build', cols: 100, rows: 30 })).shell;
    await callTool(worker, 'shell_io', { shellId: shell.id, text: 'echo built\n' });
    await go('Terminals');
    await page.locator(`.shell-item[data-shell-id="${shell.id}"]`).click();
    await expect.poll(() => terminalText(page, shell.id)).toContain('built');
    const host = await page.getByTestId('terminal').boundingBox();
    expect(host?.width).toBeGreaterThanOrEqual(WIDTH - 20);
    expect(await pageWidth()).toBeLessThanOrEqual(WIDTH);
    const graph = await callTool<{ graphId: string }>(worker, 'tasks_run', { name: 'phone graph', stages: [{ id: 'a', command: 'true' }, { id: 'b', command: 'true', dependsOn: ['a'] }] });
    await go('Graphs');
    await page.locator(`.graph-row[data-graph-id="${graph.graphId}"]`).click();
    await page.locator('.react-flow__node[data-id="b"]').waitFor();
    const dag = await page.getByTestId('graph-dag').boundingBox();
    expect(dag?.width).toBeGreaterThanOrEqual(WIDTH - 20);
    expect(dag?.height).toBeGreaterThanOrEqual(300);
    expect(await pageWidth()).toBeLessThanOrEqual(WIDTH);
    expect(pageErrors).toEqual([]);
  });
});
