/**
 * The Graphs screen in real Chromium against a real room (the runner's own door), with an agent played by a
 * real MCP SDK client: a diamond graph whose one stage fails shows its states change live, the failed stage's
 * log and reason, its dependent skipped; a stage cancelled from the UI ends (its process is gone); a graph at
 * the room's stage limit (256) lays out and stays interactive. Saves light and dark screenshots under
 * test-output/. Needs `npm run build` (the renderer bundle in out/renderer).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { graphViewSettled, outputFile } from './helpers/open-ui';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';
import { markedSleep, waitForProcessWith } from '../helpers/env';

let room: UiRoom;
let runner: RunningRoom;
let agent: Client;
let page: Page;
let work: string;
const pageErrors: string[] = [];

const tool = <T>(name: string, args: Record<string, unknown>) => callTool<T>(agent, name, args);

const node = (id: string) => page.locator(`.react-flow__node[data-id="${id}"] .stage-node`);
const stateOf = (id: string) => node(id).getAttribute('data-state');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function showGraph(graphId: string): Promise<void> {
  const row = page.locator(`.graph-row[data-graph-id="${graphId}"]`);
  await row.waitFor();
  await row.click();
}

beforeAll(async () => {
  room = await startUiRoom({ pageErrors });
  ({ runner, page } = room);
  agent = room.agents[0] as Client;
  work = path.join(room.home.root, 'work');
  fs.mkdirSync(work);
  await page.getByRole('button', { name: /Graphs/ }).click();
}, 60_000);

afterAll(() => room?.close());

describe('graphs in the browser', () => {
  let diamond: string;

  it('a diamond graph the agent runs shows its states change live; the failed stage’s dependent is skipped', async () => {
    const gate = path.join(work, 'gate');
    const run = await tool<{ graphId: string }>('tasks_run', {
      name: 'diamond: build, test and lint, then package',
      stages: [
        { id: 'a', command: ['sh', '-c', `echo a-start; while [ ! -f ${gate} ]; do sleep 0.05; done; echo a-done`] },
        { id: 'b', command: ['sh', '-c', 'echo b-ok'], dependsOn: ['a'] },
        { id: 'c', command: ['sh', '-c', 'echo c-out; echo c-broke >&2; exit 7'], dependsOn: ['a'] },
        { id: 'd', command: ['sh', '-c', 'echo d'], dependsOn: ['b', 'c'] },
      ],
    });
    diamond = run.graphId;
    await showGraph(diamond);
    await expect.poll(() => stateOf('a'), { timeout: 15_000 }).toBe('running');
    await expect.poll(() => node('d').innerText()).toContain('waits on b, c');

    fs.writeFileSync(gate, '');
    await expect.poll(() => stateOf('c'), { timeout: 15_000 }).toBe('failed');
    await expect.poll(() => stateOf('d')).toBe('skipped');
    // b runs beside c and is not cancelled by c's failure: it completes, maybe after d was skipped (a loaded machine)
    await expect.poll(() => stateOf('b'), { timeout: 15_000 }).toBe('completed');
    await expect.poll(() => page.getByTestId('graph-state').innerText()).toContain('failed');
    expect(await node('c').innerText()).toContain('failed');
    // the list row says failed too, in words
    expect(await page.locator(`.graph-row[data-graph-id="${diamond}"]`).innerText()).toMatch(/failed[\s\S]*4\/4 ended/);
  });

  it('clicking the failed stage shows its log, its reason and exit code', async () => {
    await node('c').click();
    await expect.poll(() => page.getByTestId('stage-log').innerText()).toContain('c-out');
    expect(await page.getByTestId('stage-log').innerText()).toContain('c-broke');
    expect(await page.getByTestId('stage-error').innerText()).toContain('EXIT_NONZERO');
    expect(await page.getByTestId('stage-exit').innerText()).toBe('7');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: outputFile(`graphs-diamond-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: outputFile('graphs-diamond-1920-light.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('re-running the failed graph from the UI submits the same spec as a new graph, shown at once', async () => {
    await page.getByRole('button', { name: 'Re-run graph' }).click();
    const rows = page.locator('.graph-row');
    await expect.poll(() => rows.count()).toBe(2);
    // the new row can arrive on the change feed a moment before the re-run's answer selects it
    const activeId = () => page.locator('.graph-row.active').getAttribute('data-graph-id');
    await expect.poll(activeId).not.toBe(diamond);
    const rerunId = await activeId();
    // the gate file is still there, so the re-run goes straight through to the same failure
    await expect.poll(() => stateOf('c'), { timeout: 15_000 }).toBe('failed');
    await expect.poll(() => stateOf('d')).toBe('skipped');
    // submitted by the person (the UI's caller), so it is theirs, not the agent's
    const status = await runner.engine.call(runner.engine.operator(), 'tasks_status', { graphId: rerunId ?? '' });
    expect(status.graph).toMatchObject({ name: 'diamond: build, test and lint, then package', state: 'failed' });
    expect(status.graph.owner).not.toBe('agent');
  });

  it('"Re-run failed stages" runs only the stages that did not complete, through the UI door', async () => {
    const before = await page.locator('.graph-row.active').getAttribute('data-graph-id');
    await expect.poll(() => page.getByTestId('graph-state').innerText(), { timeout: 15_000 }).toMatch(/failed/);
    await page.getByRole('button', { name: 'Re-run failed stages' }).click();
    await expect.poll(() => page.locator('.graph-row.active').getAttribute('data-graph-id')).not.toBe(before);
    const onlyId = (await page.locator('.graph-row.active').getAttribute('data-graph-id')) ?? '';
    const topology = await runner.engine.call(runner.engine.operator(), 'tasks_graph', { graphId: onlyId });
    // c failed and d was skipped; a and b completed and are not run again
    expect(topology.stages.map((s) => s.id).sort()).toEqual(['c', 'd']);
    expect(topology.stages.find((s) => s.id === 'd')?.dependsOn).toEqual(['c']);
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(2);
    await expect.poll(() => page.getByRole('status').innerText()).toContain('The 2 stages that did not complete re-run as a new graph.');
  });

  it('cancel stage from the UI ends a running stage: its process is gone', async () => {
    const marker = markedSleep();
    const run = await tool<{ graphId: string }>('tasks_run', {
      name: 'long job',
      stages: [
        { id: 'slow', command: ['sh', '-c', `echo working; exec sleep ${marker}`] },
        { id: 'after', command: 'true', dependsOn: ['slow'] },
      ],
    });
    await showGraph(run.graphId);
    await expect.poll(() => stateOf('slow'), { timeout: 15_000 }).toBe('running');
    // an agent's stage runs in the sandbox's pid namespace: found by its argument, not by its $$
    const pid = await waitForProcessWith(marker);
    expect(alive(pid)).toBe(true);
    await node('slow').click();
    await expect.poll(() => page.getByTestId('stage-log').innerText()).toContain('working');
    await page.getByRole('button', { name: 'Cancel stage' }).click();
    await expect.poll(() => stateOf('slow'), { timeout: 15_000 }).toBe('cancelled');
    await expect.poll(() => alive(pid), { timeout: 15_000 }).toBe(false);
    await expect.poll(() => stateOf('after')).toBe('skipped');
  });

  it('a tty stage opens in the terminal view; cancel graph from the UI ends it', async () => {
    const run = await tool<{ graphId: string }>('tasks_run', {
      name: 'interactive stage',
      stages: [{ id: 'repl', command: ['sh', '-c', 'echo tty-ready; exec sleep 300'], tty: true }],
    });
    await showGraph(run.graphId);
    await expect.poll(() => stateOf('repl'), { timeout: 15_000 }).toBe('running');
    await node('repl').click();
    const open = page.getByRole('button', { name: 'Open in terminal' });
    await open.waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Cancel graph' }).waitFor();
    await open.click();
    const terminal = page.getByTestId('terminal');
    await expect.poll(() => terminal.getAttribute('data-shell-id')).toBeTruthy();
    const { shells } = await runner.engine.call(runner.engine.operator(), 'shell_list', {});
    const shell = shells.find((s) => s.name.startsWith(`stage ${run.graphId}:repl#`));
    expect(await terminal.getAttribute('data-shell-id')).toBe(shell?.id);

    await page.getByRole('button', { name: /Graphs/ }).click();
    await showGraph(run.graphId);
    // cancelling asks first, in the app (it cannot be undone); saying no (Escape) changes nothing
    await page.getByRole('button', { name: 'Cancel graph' }).click();
    const asked = page.getByTestId('confirm-dialog');
    await asked.waitFor();
    expect(await asked.innerText()).toMatch(/Cancel interactive stage\?\s+Its 1 running stage is ended and the stages not yet run never run\. This cannot be undone\./);
    await page.keyboard.press('Escape');
    await asked.waitFor({ state: 'detached' });
    expect(await stateOf('repl')).toBe('running');
    await page.getByRole('button', { name: 'Cancel graph' }).click();
    await page.getByTestId('confirm-yes').click();
    await expect.poll(() => page.getByTestId('graph-state').innerText(), { timeout: 15_000 }).toContain('cancelled');
    expect(await stateOf('repl')).toBe('cancelled');
  });

  it('a graph of 256 stages is laid out and stays interactive', async () => {
    // a lattice of 16 layers of 16: each stage depends on two of the layer before
    const stages = [];
    for (let layer = 0; layer < 16; layer++) {
      for (let i = 0; i < 16; i++) {
        const dependsOn = layer === 0 ? [] : [`s${layer - 1}-${i}`, `s${layer - 1}-${(i + 1) % 16}`];
        stages.push({ id: `s${layer}-${i}`, command: 'true', dependsOn });
      }
    }
    const run = await tool<{ graphId: string }>('tasks_run', { name: 'lattice of 256 stages', maxParallel: 8, stages });
    await showGraph(run.graphId);
    // a graph this big opens focused at a readable zoom (initial-view.ts); fit view frames what matters, readable
    await page.getByTestId('dag-focus-note').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: /fit view/i }).click();
    // the person chose the view: it stays put while the lattice runs (no refit as the header's counts change)
    await graphViewSettled(page);
    // the finder goes to a stage wherever it is (only the stages near the view are drawn at this size)
    await page.getByLabel('Find a stage').fill('s0-3');
    await page.getByLabel('Find a stage').press('Enter');
    await expect.poll(() => page.locator('.stage-panel-head h3').innerText()).toBe('s0-3');
    await node('s0-3').click();
    // still live: the lattice ends and the page shows it
    await expect.poll(() => page.getByTestId('graph-state').innerText(), { timeout: 150_000 }).toContain('completed');
    await page.screenshot({ path: outputFile('graphs-lattice-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: outputFile('graphs-lattice-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(pageErrors).toEqual([]);
  }, 300_000);
});
