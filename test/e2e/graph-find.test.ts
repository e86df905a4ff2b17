/**
 * A 500-stage graph in real Chromium through the runner's own door, by keyboard alone (issue 35, items 9 and
 * 11): find a failed stage's cause (Next failure, its error, its full command, its log searched, the log
 * expanded to the screen, the retried attempt picked), walk the stages with Tab (no edge is a stop) with a
 * visible focus ring and open one with Enter, narrow the graph by search and state, and cancel a running
 * graph. The graph is submitted by an agent (a real MCP client). Screenshots at 1440 and 1024 wide, light
 * and dark, in test-output/. Needs `npm run build`.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { outputFile } from './helpers/open-ui';
import { callTool, stageState, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let runner: RunningRoom;
let agent: Client;
let page: Page;
const pageErrors: string[] = [];
const LAYERS = 20;
const WIDTH = 25;
const LONG_COMMAND = `echo "preparing the integration environment for every service in the monorepo, this takes a while"; echo step-one; echo step-two; echo "the database migration failed: relation payments_ledger does not exist" >&2; exit 4`;
let graphId = '';

/** Presses Tab until the focused element matches `selector` (at most `max` presses): keyboard only, no clicks. */
async function tabTo(selector: string, max = 80): Promise<void> {
  // 'button:Next failure': a button whose text starts so
  const [css, text] = selector.startsWith('button:') ? ['button', selector.slice(7)] : [selector, ''];
  for (let i = 0; i < max; i++) {
    if (await page.evaluate(([c, t]) => (document.activeElement?.matches(c) ?? false) && (document.activeElement?.textContent ?? '').startsWith(t), [css, text] as const)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}; focus is on ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 200))}`);
}

async function shoot(name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [[1440, 900], [1024, 640]] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(300); // layout settles (a picture, not an assertion)
      await page.screenshot({ path: outputFile(`hist-${name}-${scheme}-${width}.png`) });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['planner'] });
  ({ runner, page } = room);
  agent = room.agents[0] as Client;
  const stages = [];
  for (let layer = 0; layer < LAYERS; layer++) {
    for (let i = 0; i < WIDTH; i++) {
      const dependsOn = layer === 0 ? [] : [`s${layer - 1}-${i}`, `s${layer - 1}-${(i + 1) % WIDTH}`];
      // two first-rank stages fail: one with a long command, retried once; the rest succeed at once
      if (layer === 0 && i === 7) stages.push({ id: 's0-7', command: ['sh', '-c', LONG_COMMAND], retries: 1, retryBackoffMs: 0 });
      else if (layer === 0 && i === 19) stages.push({ id: 's0-19', command: ['sh', '-c', 'echo other-failure >&2; exit 5'] });
      else stages.push({ id: `s${layer}-${i}`, command: 'true', dependsOn });
    }
  }
  graphId = (await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'a 500-stage lattice with two failures', maxParallel: WIDTH, stages })).graphId;
  // one call waits for the whole graph to end (again if it answers before)
  while ((await runner.engine.call(runner.engine.operator(), 'tasks_status', { graphId, stages: false, waitMs: 20_000, until: 'ended' })).graph.state === 'running');
}, 240_000);

afterAll(() => room?.close());

describe('a big graph by keyboard', () => {
  it("finds a failed stage's cause: Next failure, its error, its whole command and its log", async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Graphs/ }).focus();
    await page.keyboard.press('Enter');
    await page.locator(`.graph-row[data-graph-id="${graphId}"]`).waitFor();
    await tabTo(`.graph-row[data-graph-id="${graphId}"]`);
    await page.keyboard.press('Enter');
    await tabTo('button:Next failure');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Next failure (2)');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.stage-panel-head h3').innerText()).toBe('s0-7');
    expect(await page.getByTestId('stage-error').innerText()).toContain('EXIT_NONZERO');
    expect(await page.getByTestId('stage-command').innerText()).toBe(`sh -c ${LONG_COMMAND}`);
    // retried: the graph says which attempt, and the log opens on the last one
    expect(await page.locator('.react-flow__node[data-id="s0-7"] .stage-node').innerText()).toContain('attempt 2 of 2');
    await expect.poll(() => page.getByLabel('Attempt').inputValue()).toBe('2');
    await expect.poll(() => page.getByTestId('stage-log').innerText()).toContain('payments_ledger does not exist');
    expect(await page.locator('.log-line').first().innerText()).toMatch(/^\d+\s*\[attempt 2 of 2/);
    await tabTo('input[aria-label="Attempt"], select[aria-label="Attempt"]');
    await page.keyboard.press('ArrowUp'); // attempt 1
    await expect.poll(() => page.locator('.log-line').first().innerText()).toMatch(/\[attempt 1 of 2/);
    await tabTo('input[aria-label="Search the log"]');
    await page.keyboard.type('step-two');
    await expect.poll(() => page.getByTestId('log-hits').innerText()).toBe('1 of 2');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('log-hits').innerText()).toBe('2 of 2');
    expect(await page.locator('.log-line.current').innerText()).toContain('step-two');
    await tabTo('button:Expand');
    await page.keyboard.press('Enter');
    const view = page.locator('.stage-log-view.expanded');
    await view.waitFor();
    const box = await view.boundingBox();
    expect(box?.width).toBe(1280);
    await shoot('stage-log-expanded');
    await page.keyboard.press('Escape');
    await expect.poll(() => view.count()).toBe(0);
    // the next failure after it, by the same key
    await tabTo('button:Next failure');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.stage-panel-head h3').innerText()).toBe('s0-19');
    await shoot('graph-failure');
  });

  it('Tab walks the stages, not the edges, with a visible ring; Enter opens the focused stage', async () => {
    await tabTo('button:Next failure');
    await page.keyboard.press('Tab');
    // the first stop after the finder is a stage: no edge takes focus
    await tabTo('.react-flow__node', 5);
    expect(await page.locator('.react-flow__edge[tabindex="0"]').count()).toBe(0);
    const focused = page.locator('.react-flow__node:focus .stage-node');
    const ring = await focused.evaluate((el) => getComputedStyle(el).outlineStyle + ' ' + getComputedStyle(el).outlineWidth);
    expect(ring).toBe('solid 3px');
    const id = await page.evaluate(() => document.activeElement?.getAttribute('data-id'));
    await page.keyboard.press('Tab');
    const next = await page.evaluate(() => document.activeElement?.getAttribute('data-id'));
    expect(next).not.toBe(id);
    expect(next).toMatch(/^s\d+-\d+$/);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.stage-panel-head h3').innerText()).toBe(next);
  });

  it('search and the state filter narrow the graph; Enter in search goes to the next match', async () => {
    await page.getByLabel('Find a stage').focus();
    await page.keyboard.type('s12-');
    await expect.poll(() => page.getByTestId('finder-count').innerText()).toBe(`${WIDTH} of 500 match`);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.stage-panel-head h3').innerText()).toMatch(/^s12-\d+$/);
    await page.getByLabel('Find a stage').fill('');
    await page.getByLabel('Show stages in state').selectOption('failed');
    await expect.poll(() => page.getByTestId('finder-count').innerText()).toBe('2 of 500 match');
    expect(await page.locator('.react-flow__node.dimmed').count()).toBeGreaterThan(0);
    // Next match goes to the first failure (wrapping round from the stage open now) and centres it
    await page.getByRole('button', { name: 'Next match' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.stage-panel-head h3').innerText()).toBe('s0-7');
    expect(await page.locator('.react-flow__node[data-id="s0-7"]').getAttribute('class')).not.toContain('dimmed');
    await shoot('graph-filtered');
    await page.getByLabel('Show stages in state').selectOption('');
  }, 120_000);

  it('cancels a running graph by keyboard, after saying what it ends', async () => {
    const run = await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'a long job to cancel', stages: [{ id: 'slow', command: ['sh', '-c', 'exec sleep 300'] }] });
    await expect.poll(() => stageState(runner, run.graphId, 'slow'), { timeout: 30_000 }).toBe('running');
    await page.locator(`.graph-row[data-graph-id="${run.graphId}"]`).waitFor();
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Graphs/ }).focus();
    await tabTo(`.graph-row[data-graph-id="${run.graphId}"]`);
    await page.keyboard.press('Enter');
    await tabTo('button:Cancel graph');
    await page.keyboard.press('Enter');
    // it asks in the app's dialog, the safe answer focused first; Tab to the one that cancels
    const asked = page.getByTestId('confirm-dialog');
    await asked.waitFor();
    expect(await asked.innerText()).toMatch(/^Cancel a long job to cancel\?/);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep it running');
    await tabTo('button:Cancel graph');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('confirm-yes');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('graph-state').innerText(), { timeout: 15_000 }).toContain('cancelled');
    expect(await stageState(runner, run.graphId, 'slow')).toBe('cancelled');
    expect(pageErrors).toEqual([]);
  });
});
