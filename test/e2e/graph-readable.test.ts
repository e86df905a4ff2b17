/**
 * A graph people can read at any size (issue 46, item 2), in real Chromium through the runner's own door, with
 * graphs an agent submits: a 30-stage graph (a failure after a retry, running stages) and a 500-stage one. At
 * 1440×900, 1024×768 and 390×844, light and dark, the fitted view draws every visible stage's text at >= 11 px on
 * screen (measured: font size × the view's zoom, and the id's line box); focus mode dims everything but a
 * stage's ancestors and descendants (button and key); a running stage's duration counts; the stage panel shares
 * the space (the selected stage stays in view); the finder's filter does not carry over to the next graph; axe
 * finds nothing serious on a filtered graph. Screenshots in /work/shots/wt-graph/ (or SHOTS_DIR).
 * Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { axeCount } from './helpers/axe';
import { graphViewSettled } from './helpers/open-ui';
import { callTool, stageState, startUiRoom, type UiRoom } from './helpers/ui-room';

const SHOTS = process.env.SHOTS_DIR ?? '/work/shots/wt-graph';
const SIZES = [[1440, 900], [1024, 768], [390, 844]] as const;
const LAYERS = ['fetch', 'build', 'test', 'package', 'sign', 'publish'];

let room: UiRoom;
let runner: RunningRoom;
let agent: Client;
let page: Page;
const pageErrors: string[] = [];
let small = '';
let big = '';

const node = (id: string) => page.locator(`.react-flow__node[data-id="${id}"] .stage-node`);
const shot = (name: string) => {
  fs.mkdirSync(SHOTS, { recursive: true });
  return page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
};

/** The smallest on-screen text of the stages in view: each line's font size × the view's zoom, and the id's line box. */
async function visibleText(): Promise<{ labels: number; minPx: number; minIdBox: number }> {
  return page.evaluate(() => {
    const dag = document.querySelector('[data-testid="graph-dag"]')!.getBoundingClientRect();
    const m = new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')!).transform);
    let labels = 0;
    let minPx = Infinity;
    let minIdBox = Infinity;
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('.stage-node-id, .stage-node-state, .stage-node-detail'))) {
      const r = el.getBoundingClientRect();
      if (r.right <= dag.left || r.left >= dag.right || r.bottom <= dag.top || r.top >= dag.bottom) continue;
      minPx = Math.min(minPx, parseFloat(getComputedStyle(el).fontSize) * m.a);
      if (el.classList.contains('stage-node-id')) {
        labels++;
        minIdBox = Math.min(minIdBox, r.height);
      }
    }
    return { labels, minPx, minIdBox };
  });
}

async function open(graphId: string): Promise<void> {
  await page.locator(`.graph-row[data-graph-id="${graphId}"]`).click();
  await page.locator('.react-flow__node').first().waitFor({ timeout: 60_000 });
  await graphViewSettled(page);
}

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['planner'] });
  ({ runner, page } = room);
  agent = room.agents[0] as Client;
  const gate = path.join(room.home.root, 'never');
  const wait = ['sh', '-c', `while [ ! -f ${gate} ]; do sleep 1; done`];
  const stages = [];
  for (let layer = 0; layer < LAYERS.length; layer++) {
    for (let i = 0; i < 5; i++) {
      const id = `${LAYERS[layer]}-${i}`;
      const dependsOn = layer === 0 ? [] : [`${LAYERS[layer - 1]}-${i}`, `${LAYERS[layer - 1]}-${(i + 1) % 5}`];
      if (id === 'build-2') stages.push({ id, command: ['sh', '-c', 'echo compiler exploded >&2; exit 3'], dependsOn, retries: 1, retryBackoffMs: 0 });
      else stages.push({ id, command: layer === 0 ? ['true'] : wait, dependsOn });
    }
  }
  small = (await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'release pipeline (30 stages)', maxParallel: 8, stages })).graphId;
  const lattice = [];
  for (let layer = 0; layer < 20; layer++) {
    for (let i = 0; i < 25; i++) {
      const dependsOn = layer === 0 ? [] : [`s${layer - 1}-${i}`, `s${layer - 1}-${(i + 1) % 25}`];
      lattice.push({ id: `s${layer}-${i}`, command: layer === 0 && i === 12 ? ['sh', '-c', 'echo broken >&2; exit 3'] : wait, dependsOn });
    }
  }
  big = (await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'a 500-stage lattice', maxParallel: 25, stages: lattice })).graphId;
  // each graph's failure is there before it is first framed (the view frames what matters when it opens)
  const failed = async (graphId: string, stageId: string) => {
    for (let i = 0; i < 300 && (await stageState(runner, graphId, stageId)) !== 'failed'; i++) await new Promise((r) => setTimeout(r, 100));
  };
  await failed(small, 'build-2');
  await failed(big, 's0-12');
  await page.getByRole('button', { name: /Graphs/ }).click();
}, 90_000);

afterAll(async () => {
  for (const graphId of [small, big]) if (graphId) await callTool(agent, 'tasks_cancel', { graphId }).catch(() => undefined);
  await room?.close();
});

describe('a graph people can read', () => {
  it('fitted, the 30- and 500-stage graphs draw every visible label at 11 px or more, at every size and scheme', async () => {
    const seen: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [width, height] of SIZES) {
        await page.setViewportSize({ width, height });
        for (const [graphId, name] of [[small, '30'], [big, '500']] as const) {
          await open(graphId);
          await page.getByRole('button', { name: /fit view/i }).click();
          const text = await visibleText();
          seen.push(`${name} ${scheme} ${width}: ${text.labels} labels, min ${text.minPx.toFixed(1)} px (id box ${text.minIdBox.toFixed(1)} px)`);
          expect(text.labels).toBeGreaterThan(0);
          expect(text.minPx).toBeGreaterThanOrEqual(11);
          expect(text.minIdBox).toBeGreaterThanOrEqual(11);
          await shot(`graph-${name}-fit-${scheme}-${width}`);
        }
      }
    }
    console.log(seen.join('\n'));
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
  }, 240_000);

  it('zoomed out, the stages are state-coloured boxes on a canvas (the far level of detail)', async () => {
    await open(big);
    await page.getByRole('button', { name: /whole graph/i }).click();
    await expect.poll(() => page.getByTestId('graph-dag').getAttribute('data-lod')).toBe('overview');
    expect(await page.locator('.react-flow__node').count()).toBe(0);
    // grouped by name prefix: its 20 layers (s0-*, s1-*, …), each framed and named on the canvas
    expect(await page.getByTestId('graph-dag').getAttribute('data-groups')).toBe('20');
    await shot('graph-500-whole-light-1440');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('graph-500-whole-dark-1440');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('focus mode dims everything but the stage, its ancestors and its descendants (button and F key)', async () => {
    await open(small);
    await node('test-2').click();
    await expect.poll(() => page.locator('.stage-panel-head h3').innerText()).toBe('test-2');
    await page.getByRole('button', { name: 'Focus', exact: true }).click();
    // test-2 depends on build-2 and build-3 (and they on fetch-2, -3, -4); package-1 and package-2 depend on it, and so on
    await expect.poll(() => page.locator('.react-flow__node:not(.dimmed)').count()).toBeGreaterThan(3);
    const lit = await page.locator('.react-flow__node:not(.dimmed)').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')).sort());
    expect(lit).toEqual(['build-2', 'build-3', 'fetch-2', 'fetch-3', 'fetch-4', 'package-1', 'package-2', 'publish-0', 'publish-1', 'publish-2', 'publish-4', 'sign-0', 'sign-1', 'sign-2', 'test-2'].sort());
    expect(await page.getByRole('button', { name: /Focused: 15 stages/ }).getAttribute('aria-pressed')).toBe('true');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [width, height] of SIZES) {
        await page.setViewportSize({ width, height });
        await graphViewSettled(page);
        await shot(`graph-30-focus-${scheme}-${width}`);
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    // F leaves it (the key works on the graph and its panel)
    await page.getByRole('button', { name: /Focused/ }).focus();
    await page.keyboard.press('f');
    await expect.poll(() => page.locator('.react-flow__node.dimmed').count()).toBe(0);
  });

  it("a running stage's duration counts up; the panel shares the space with the graph", async () => {
    await open(small);
    await page.getByRole('button', { name: 'Close stage panel' }).click();
    await page.getByRole('button', { name: /fit view/i }).click();
    await node('build-0').click({ timeout: 10_000 });
    const duration = page.getByTestId('stage-duration');
    await expect.poll(() => duration.innerText()).toMatch(/so far$/);
    const first = await duration.innerText();
    await expect.poll(() => duration.innerText(), { timeout: 10_000 }).not.toBe(first);
    // the selected stage is in the canvas, not under the panel
    const canvas = await page.getByTestId('graph-dag').boundingBox();
    const panel = await page.locator('.stage-panel').boundingBox();
    const stage = await node('build-0').boundingBox();
    expect(canvas && panel && stage).toBeTruthy();
    expect(stage!.x + stage!.width).toBeLessThanOrEqual(canvas!.x + canvas!.width);
    expect(panel!.x).toBeGreaterThanOrEqual(canvas!.x + canvas!.width - 1);
    await page.setViewportSize({ width: 390, height: 844 });
    await graphViewSettled(page);
    await shot('graph-30-panel-light-390');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('the find filter does not carry over to the next graph; axe finds nothing serious on a filtered graph', async () => {
    await open(big);
    await page.getByLabel('Show stages in state').selectOption('failed');
    await expect.poll(() => page.getByTestId('finder-count').innerText()).toBe('1 of 500 match');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const count = await axeCount(page, 'filtered graph', scheme);
      expect(count.findings).toEqual([]);
      expect(count.critical + count.serious).toBe(0);
      await shot(`graph-500-filtered-${scheme}-1440`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await open(small);
    expect(await page.getByLabel('Show stages in state').inputValue()).toBe('');
    expect(await page.getByLabel('Find a stage').inputValue()).toBe('');
    expect(await page.locator('.react-flow__node.dimmed').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
