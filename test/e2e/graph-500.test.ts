/**
 * A 500-stage graph in real Chromium through the runner's own door, submitted by an agent (a real MCP client):
 * it is drawn from the linear layout (ELK is not asked at this size); it opens at a readable zoom on its failed
 * stage (fit view would make 500 stages specks), says so, and stays interactive: fit (readable), the whole graph
 * (every stage a coloured box on a canvas), zoom, pan, the minimap, and a click on a stage opens its panel. Screenshots at 1280×800 and 1920×1080, light and dark, in test-output/.
 * Needs `npm run build`.
 */
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { READABLE_ZOOM } from '../../src-renderer/src/features/graphs/initial-view';
import { graphViewSettled, outputFile } from './helpers/open-ui';
import { callTool, stageState, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let runner: RunningRoom;
let agent: Client;
let page: Page;
const pageErrors: string[] = [];
const workers: string[] = [];
const LAYERS = 20;
const WIDTH = 25;

const node = (id: string) => page.locator(`.react-flow__node[data-id="${id}"] .stage-node`);
/** The canvas's zoom and pan, from React Flow's viewport transform. */
async function viewport(): Promise<{ x: number; y: number; zoom: number }> {
  return page.locator('.react-flow__viewport').evaluate((el) => {
    const m = new DOMMatrixReadOnly(getComputedStyle(el).transform);
    return { x: m.e, y: m.f, zoom: m.a };
  });
}

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['planner'] });
  ({ runner, page } = room);
  agent = room.agents[0] as Client;
  page.on('worker', (w) => workers.push(w.url()));
}, 60_000);

afterAll(() => room?.close());

describe('a graph of 500 stages', () => {
  let graphId: string;

  it('is drawn from the linear layout and opens at a readable zoom on its failed stage', async () => {
    const gate = path.join(room.home.root, 'never');
    const stages = [];
    for (let layer = 0; layer < LAYERS; layer++) {
      for (let i = 0; i < WIDTH; i++) {
        const dependsOn = layer === 0 ? [] : [`s${layer - 1}-${i}`, `s${layer - 1}-${(i + 1) % WIDTH}`];
        // one first-rank stage fails at once; the others wait on a file that never comes (cancelled at the end)
        const command = layer === 0 && i === 12 ? ['sh', '-c', 'echo broken >&2; exit 3'] : ['sh', '-c', `while [ ! -f ${gate} ]; do sleep 1; done`];
        stages.push({ id: `s${layer}-${i}`, command, dependsOn });
      }
    }
    const run = await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'a 500-stage lattice', maxParallel: WIDTH, stages });
    graphId = run.graphId;
    // the view is framed when it first opens: wait for the failure to be there first
    await expect.poll(() => stageState(runner, graphId, 's0-12'), { timeout: 30_000 }).toBe('failed');

    await page.getByRole('button', { name: /Graphs/ }).click();
    await page.locator(`.graph-row[data-graph-id="${graphId}"]`).click();
    await node('s0-12').waitFor({ timeout: 60_000 });
    expect(workers.some((url) => /elk-worker[^/]*\.js$/.test(url))).toBe(false);
    expect(await page.getByTestId('graph-dag').getAttribute('data-layout')).toBe('linear');
    expect(await page.getByTestId('dag-focus-note').innerText()).toContain('500 stages: showing the first failed stage');
    await expect.poll(async () => (await viewport()).zoom).toBeGreaterThanOrEqual(READABLE_ZOOM - 1e-6);
    // the failed stage is on screen, inside the canvas
    const canvas = await page.getByTestId('graph-dag').boundingBox();
    const failed = await node('s0-12').boundingBox();
    expect(canvas && failed && failed.x >= canvas.x && failed.x + failed.width <= canvas.x + canvas.width).toBe(true);
    expect(await node('s0-12').getAttribute('data-state')).toBe('failed');

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [width, height] of [[1280, 800], [1920, 1080]] as const) {
        await page.setViewportSize({ width, height });
        await expect.poll(async () => (await page.getByTestId('graph-dag').boundingBox())?.width ?? 0).toBeGreaterThan(width / 2);
        await graphViewSettled(page);
        await page.screenshot({ path: outputFile(`graphs-500-${scheme}-${width}x${height}.png`) });
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
  }, 180_000);

  it('fit (readable), the whole graph, zoom, pan and the minimap move the view; a click on a stage opens its panel', async () => {
    await page.getByRole('button', { name: /whole graph/i }).click();
    await expect.poll(async () => (await viewport()).zoom).toBeLessThan(0.3);
    // far out, the stages are coloured boxes on one canvas, not 500 DOM nodes
    await expect.poll(() => page.getByTestId('graph-dag').getAttribute('data-lod')).toBe('overview');
    expect(await page.locator('.react-flow__node').count()).toBe(0);
    // the note described the focused view; it is gone once the person chose another
    await page.getByTestId('dag-focus-note').waitFor({ state: 'detached' });
    await page.screenshot({ path: outputFile('graphs-500-whole-light-1280x800.png') });

    const fitted = await viewport();
    await page.getByRole('button', { name: /zoom in/i }).click();
    await expect.poll(async () => (await viewport()).zoom).toBeGreaterThan(fitted.zoom);

    const before = await viewport();
    const pane = await page.locator('.react-flow__pane').boundingBox();
    if (!pane) throw new Error('no pane');
    // drag on the pane near its top edge (the lattice is centred, so there is background there)
    await page.mouse.move(pane.x + pane.width / 2, pane.y + 8);
    await page.mouse.down();
    await page.mouse.move(pane.x + pane.width / 2 - 150, pane.y + 60, { steps: 8 });
    await page.mouse.up();
    await expect.poll(async () => (await viewport()).x).not.toBe(before.x);

    const moved = await viewport();
    const minimap = await page.getByTestId('dag-minimap').boundingBox();
    if (!minimap) throw new Error('no minimap');
    await page.mouse.move(minimap.x + minimap.width / 2, minimap.y + minimap.height / 2);
    await page.mouse.down();
    await page.mouse.move(minimap.x + minimap.width / 4, minimap.y + minimap.height / 3, { steps: 8 });
    await page.mouse.up();
    await expect.poll(async () => (await viewport()).x).not.toBe(moved.x);

    // fit view frames what matters (the failure) at a readable size, never 500 specks
    await page.getByRole('button', { name: /fit view/i }).click();
    await expect.poll(async () => (await viewport()).zoom).toBeGreaterThanOrEqual(READABLE_ZOOM - 1e-6);
    const chosen = await viewport();
    await node('s0-12').click();
    await expect.poll(() => page.locator('.stage-panel-head h3').innerText()).toBe('s0-12');
    await expect.poll(() => page.getByTestId('stage-log').innerText(), { timeout: 15_000 }).toContain('broken');
    // the panel narrowed the canvas, but the view the person chose is kept (at most panned to keep the stage in view)
    expect((await viewport()).zoom).toBe(chosen.zoom);
    const canvas = await page.getByTestId('graph-dag').boundingBox();
    const stage = await node('s0-12').boundingBox();
    expect(canvas && stage && stage.x >= canvas.x && stage.x + stage.width <= canvas.x + canvas.width).toBe(true);
    // the view stays live: cancelling the graph reaches every node
    // it asks first, in the app's own dialog: cancelling cannot be undone
    await page.getByRole('button', { name: 'Cancel graph' }).click();
    await page.getByTestId('confirm-dialog').getByTestId('confirm-yes').click();
    await expect.poll(() => page.getByTestId('graph-state').innerText(), { timeout: 60_000 }).toMatch(/failed|cancelled/);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
