/**
 * The largest graph the room accepts (10,000 stages, a 250×40 lattice) in real Chromium through the runner's own
 * door, submitted by an agent: it is drawn (ELK's recursion overflowed its stack at this size, so the view lays
 * graphs over ELK_MAX_STAGES out itself), opens on its running stage, says so, and a click on a stage opens its
 * panel. Screenshot in test-output/. Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { graphViewSettled, outputFile } from './helpers/open-ui';
import { callTool, stageState, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let runner: RunningRoom;
let agent: Client;
let page: Page;
const pageErrors: string[] = [];
const ROWS = 250;
const COLS = 40;

const node = (id: string) => page.locator(`.react-flow__node[data-id="${id}"] .stage-node`);

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['planner'] });
  ({ runner, page } = room);
  agent = room.agents[0] as Client;
}, 60_000);

afterAll(() => room?.close());

describe('a graph of 10,000 stages', () => {
  it('is drawn, opens on its running stage, and a stage opens its panel', async () => {
    const gate = path.join(room.home.root, 'never');
    const stages = [];
    for (let r = 0; r < ROWS; r++) {
      for (let c = 0; c < COLS; c++) {
        const dependsOn = [...(r > 0 ? [`s${r - 1}_${c}`] : []), ...(c > 0 ? [`s${r}_${c - 1}`] : [])];
        // the first stage waits on a file that never comes, so the rest stay pending (cancelled at the end)
        stages.push({ id: `s${r}_${c}`, command: ['sh', '-c', `while [ ! -f ${gate} ]; do sleep 1; done`], dependsOn });
      }
    }
    const { graphId } = await callTool<{ graphId: string }>(agent, 'tasks_run', { name: 'a 10,000-stage lattice', maxParallel: 1, stages });
    await expect.poll(() => stageState(runner, graphId, 's0_0'), { timeout: 30_000 }).toBe('running');

    await page.getByRole('button', { name: /Graphs/ }).click();
    await page.locator(`.graph-row[data-graph-id="${graphId}"]`).click();
    await node('s0_0').waitFor({ timeout: 120_000 });
    expect(await page.locator('[role="alert"]').count()).toBe(0);
    expect(await page.getByTestId('dag-focus-note').innerText()).toContain('10,000 stages: showing the running stages');
    expect(await node('s0_0').getAttribute('data-state')).toBe('running');
    // its dependents are drawn to its right, in the lattice's order
    const [first, right, below] = await Promise.all(['s0_0', 's0_1', 's1_0'].map((id) => node(id).boundingBox()));
    expect(first && right && right.x > first.x).toBe(true);
    expect(first && below && below.x > first.x).toBe(true);
    await graphViewSettled(page);
    await page.screenshot({ path: outputFile('graphs-10000-light-1280x800.png') });
    // only the stages near the view are DOM nodes: a few dozen of 10,000
    expect(await page.locator('.react-flow__node').count()).toBeLessThan(400);
    const shots = process.env.SHOTS_DIR ?? '/work/shots/wt-graph';
    fs.mkdirSync(shots, { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [width, height] of [[1440, 900], [1024, 768], [390, 844]] as const) {
        await page.setViewportSize({ width, height });
        await graphViewSettled(page);
        await page.screenshot({ path: path.join(shots, `graph-10000-${scheme}-${width}.png`) });
      }
    }
    await page.getByRole('button', { name: /whole graph/i }).click();
    await expect.poll(() => page.getByTestId('graph-dag').getAttribute('data-lod')).toBe('overview');
    await page.screenshot({ path: path.join(shots, 'graph-10000-whole-dark-390.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: /fit view/i }).click();

    await node('s0_1').click();
    await expect.poll(() => page.locator('.stage-panel-head h3').innerText()).toBe('s0_1');
    // it asks first, in the app's own dialog: cancelling cannot be undone
    await page.getByRole('button', { name: 'Cancel graph' }).click();
    await page.getByTestId('confirm-dialog').getByTestId('confirm-yes').click();
    await expect.poll(() => page.getByTestId('graph-state').innerText(), { timeout: 60_000 }).toMatch(/cancelled/);
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
