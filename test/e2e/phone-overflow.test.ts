/**
 * A phone that works (issue 46, item 5): in a populated room — agents with long names and shells, a failed graph
 * with a long name, handoffs with a long result, a question, and a real git diff with long lines — every screen
 * at 360, 390 and 430 px wide lays out within the phone's width: neither the page nor a screen's own scroll area
 * scrolls sideways (what scrolls sideways on purpose, a terminal's or a diff's lines, does so inside its own
 * box). On the review, Approve and Reject are reachable on screen; the Agents table is cards (more than 1.5
 * agents on screen); the F6 hint is hidden. In real Chromium against a real room, agents real MCP clients.
 * Screenshots at 390 in both schemes to /work/shots/wt-screens (else test-output/). Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import { git, makeRepo } from '../helpers/git-repo';
import { BASH } from '../engine/shells/helpers';
import { outputFile } from './helpers/open-ui';
import { callTool, connectAgent, startUiRoom, type UiRoom } from './helpers/ui-room';

const SHOTS = process.env.SHOTS_DIR ?? '/work/shots/wt-screens';
const shot = (name: string) => (fs.existsSync(SHOTS) ? path.join(SHOTS, name) : outputFile(name));
const LONG_AGENT = 'claude-code-on-the-build-machine-in-the-basement-with-long-name';
const LONG_GRAPH = 'nightly: build every package, run the unit and integration suites, then package the installers for all platforms';

let room: UiRoom;
let page: Page;
let lead: Client;
let dev: Client;
let review: HandoffView;
const pageErrors: string[] = [];
type H = { handoff: HandoffView };

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['lead', 'dev'] });
  ({ page } = room);
  [lead, dev] = room.agents as [Client, Client];
  const long = await connectAgent(room.runner, LONG_AGENT);
  for (const name of ['reviewer', 'tester']) await connectAgent(room.runner, name);
  await callTool(long, 'shell_open', { ...BASH, name: 'a dev server with a long name that goes on and on', cols: 140, rows: 40 });
  const { shell } = await callTool<{ shell: { id: string } }>(dev, 'shell_open', { ...BASH, name: 'build', cols: 120, rows: 30 });
  await callTool(dev, 'shell_io', { shellId: shell.id, text: `echo ${'x'.repeat(200)}\n` });
  const graph = await callTool<{ graphId: string }>(lead, 'tasks_run', {
    name: LONG_GRAPH,
    stages: [{ id: 'build-every-package-for-every-platform', command: 'true' }, { id: 'integration', command: 'echo failing-with-a-very-long-line-of-output-that-keeps-going-and-going >&2; exit 1', dependsOn: ['build-every-package-for-every-platform'] }],
  });
  await callTool(lead, 'tasks_status', { graphId: graph.graphId, stages: false, until: 'ended', waitMs: 20_000 });
  // a question, a long result, and a change with a real diff of long lines
  const asked = (await callTool<H>(lead, 'handoff_create', { summary: 'Which region should the deploy go to, given the constraints in the ticket?', to: 'dev' })).handoff;
  await callTool(dev, 'handoff_accept', { handoffId: asked.id });
  await callTool(dev, 'handoff_request_input', { handoffId: asked.id, requests: { region: { message: 'Pick a region', requestedSchema: { type: 'object', properties: { region: { type: 'string', title: 'Region', enum: ['eu-west', 'us-east'] } }, required: ['region'] } } } });
  const notes = (await callTool<H>(lead, 'handoff_create', { summary: 'Write the release notes', to: 'dev' })).handoff;
  await callTool(dev, 'handoff_accept', { handoffId: notes.id });
  await callTool(dev, 'handoff_complete', { handoffId: notes.id, result: `## Notes\n\n${Array.from({ length: 20 }, (_, i) => `${i + 1}. A change worth a line of its own: \`${'averylongidentifier'.repeat(4)}\``).join('\n')}\n\n| column a | column b | column c | column d |\n| --- | --- | --- | --- |\n| ${'wide '.repeat(10)} | b | c | d |` });
  const repo = makeRepo(path.join(room.home.root, 'phone repo'), { 'src/parser.ts': "export function parse(text: string): string[] {\n  return text.split(',');\n}\n", 'README.md': '# parser\n' });
  const h = (await callTool<H>(lead, 'handoff_create', { summary: 'Trim the fields the parser returns', to: 'dev', workspace: { repo } })).handoff;
  const accepted = (await callTool<H>(dev, 'handoff_accept', { handoffId: h.id })).handoff;
  const folder = accepted.workspace?.path ?? '';
  fs.writeFileSync(path.join(folder, 'src', 'parser.ts'), `export function parse(text: string): string[] {\n  return text.split(',').map((field) => field.trim()).filter((field) => field.length > 0 && field !== 'a-very-long-sentinel-value-that-makes-this-line-wide');\n}\n`);
  git(folder, 'add', '-A');
  git(folder, 'commit', '-q', '-m', 'Trim parsed fields');
  review = (await callTool<H>(dev, 'handoff_complete', { handoffId: h.id, result: 'Fields are trimmed.' })).handoff;
}, 120_000);
afterAll(() => room?.close());

const go = (name: string) => page.locator('.sidebar .nav-item', { hasText: name }).click();

/** How far the page, or any screen's scroll area, reaches past the phone's width (0: nothing scrolls sideways). */
function overflow(): Promise<{ page: number; areas: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const areas: string[] = [];
    // every box that scrolls (or would) except those meant to scroll sideways: a terminal, code, a diff's lines
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('.app *'))) {
      if (el.closest('.terminal-host, .xterm, pre, .diff-table-scroll-container, .markdown table, .react-flow, .sidebar')) continue;
      const style = getComputedStyle(el);
      const scrolls = /(auto|scroll)/.test(style.overflowX);
      if (scrolls && el.scrollWidth > el.clientWidth + 1) areas.push(`${el.tagName.toLowerCase()}.${Array.from(el.classList).join('.')} ${el.scrollWidth}>${el.clientWidth}`);
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > width + 1 && style.position !== 'fixed' && !el.closest('[hidden]')) areas.push(`${el.tagName.toLowerCase()}.${Array.from(el.classList).join('.')} right ${Math.round(box.right)}>${width}`);
    }
    return { page: document.documentElement.scrollWidth - width, areas: areas.slice(0, 8) };
  });
}

const SCREENS: [string, () => Promise<void>][] = [
  ['summary', async () => {
    await go('Summary');
    await page.locator('.summary-screen').waitFor();
  }],
  ['terminals', async () => {
    await go('Terminals');
    await page.locator('.shell-item').first().click();
    await page.getByTestId('terminal').waitFor();
  }],
  ['graphs', async () => {
    await go('Graphs');
    await page.locator('.graph-row').first().click();
    await page.locator('.react-flow__node').first().waitFor();
  }],
  ['inbox-review', async () => {
    await go('Inbox');
    await page.locator(`.inbox-item[data-handoff-id="${review.id}"]`).click();
    await page.getByRole('region', { name: 'Change' }).getByTestId('diff-file').first().waitFor();
  }],
  ['inbox-question', async () => {
    await go('Inbox');
    await page.locator('.inbox-item', { hasText: 'Which region' }).click();
    await page.locator('form[data-request-key="region"]').waitFor();
  }],
  ['inbox-result', async () => {
    await go('Inbox');
    await page.locator('.inbox-item', { hasText: 'release notes' }).click();
    await page.locator('.markdown li').first().waitFor();
  }],
  ['history', async () => {
    await go('History');
    await page.locator('.history-list').waitFor();
  }],
  ['agents', async () => {
    await go('Agents');
    await page.locator(`tr[data-participant="${LONG_AGENT}"]`).waitFor();
  }],
  ['schedules', async () => {
    await go('Schedules');
    await page.locator('main.screen[aria-label="schedules"]').waitFor();
  }],
  ['activity', async () => {
    await go('Activity');
    await page.locator('.activity, [data-testid="activity"]').first().waitFor();
  }],
];

describe('on a phone, 360 to 430 px wide', () => {
  for (const width of [360, 390, 430]) {
    it(`${width} px: no screen scrolls sideways`, { timeout: 120_000 }, async () => {
      await page.setViewportSize({ width, height: 844 });
      const found: Record<string, unknown> = {};
      for (const [name, open] of SCREENS) {
        await open();
        await page.waitForTimeout(200); // layout settles (a picture and a measurement, not a timing)
        const o = await overflow();
        if (o.page > 0 || o.areas.length > 0) found[name] = o;
        if (width === 390) {
          for (const scheme of ['light', 'dark'] as const) {
            await page.emulateMedia({ colorScheme: scheme });
            await page.screenshot({ path: shot(`phone-${name}-${width}-${scheme}.png`) });
          }
          await page.emulateMedia({ colorScheme: 'light' });
        }
      }
      expect(found).toEqual({});
      // the screens bar: all eight names, none cut off by its cell
      const cut = await page.locator('.sidebar .nav-item').evaluateAll((items) => items.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent));
      expect(cut).toEqual([]);
      expect(await page.locator('.sidebar .nav-item').count()).toBe(8);
      expect(pageErrors).toEqual([]);
    });
  }

  it('the review keeps Approve and Reject on screen; the Agents table shows agents as cards; no F6 hint', { timeout: 60_000 }, async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await SCREENS.find(([name]) => name === 'inbox-review')?.[1]();
    // by what they do, not their look: Approve is not the primary button while the merge preview holds it back
    for (const button of ['.decision-panel [data-testid="approve"]', '.decision-panel [data-testid="reject"]']) {
      const box = await page.locator(button).first().boundingBox();
      expect(box, button).not.toBeNull();
      expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 390, `${button} within the width`).toBe(true);
    }
    await go('Agents');
    const rows = page.locator('table.participants tbody tr');
    await rows.first().waitFor();
    // cards: at least two whole agents fit one phone screen
    const heights = await rows.evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().height));
    expect(Math.max(...heights.slice(0, 3))).toBeLessThan(844 / 2);
    await go('Terminals');
    await page.locator('.shell-item').first().click();
    expect(await page.getByTestId('terminal-hint').isVisible()).toBe(false);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await page.getByTestId('terminal-hint').isVisible()).toBe(true);
  });
});
