/**
 * The Schedules screen in real Chromium against a real runner whose clock the test moves: empty, the add form's
 * refusals (each says what to fix), a schedule added and listed with its next due time in its zone, the last
 * runs (ran, skipped, missed while the room was down, failed) after due times and a restart, a long name, and
 * remove. Screenshots at 1440×900, 1024×768 and 390×844, light and dark, empty and populated, each checked with
 * axe-core. Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import type { ScheduleRunView } from '../../src-main/common/methods/schedules';
import { makeHome, REPO, type TestHome } from '../helpers/env';
import { axeCount } from './helpers/axe';
import { closeUi, launchChromium, openUi, outputFile } from './helpers/open-ui';

const SHOTS = process.env.SCHEDULE_SHOTS ?? '';
const LONG = 'nightly build of every package in the monorepo, with the slow integration suite and the docs site';

let home: TestHome;
let runner: RunningRoom;
let browser: Browser;
let page: Page;
let now = new Date('2030-01-07T00:50:00Z');
const pageErrors: string[] = [];

async function startRoom(): Promise<void> {
  runner = await startRunner({ port: 0, paths: home.paths, clock: () => now, limits: { scheduleTickMs: 50 } });
}

async function openSchedules(): Promise<void> {
  await page.clock.setFixedTime(now);
  await openUi(page, runner);
  await page.locator('.sidebar .nav-item', { hasText: 'Schedules' }).click();
  await page.getByRole('heading', { name: 'Schedules', exact: true }).waitFor();
}

/** Screenshots of the screen at each size and scheme (to SCHEDULE_SHOTS, else test-output/). */
async function shoot(name: string): Promise<void> {
  for (const [w, h] of [[1440, 900], [1024, 768], [390, 844]] as const) {
    await page.setViewportSize({ width: w, height: h });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const file = SHOTS ? path.join(SHOTS, `schedules-${name}-${scheme}-${w}.png`) : outputFile(`schedules-${name}-${scheme}-${w}.png`);
      await page.screenshot({ path: file, fullPage: true });
      // axe-core: no serious or critical finding (contrast of the badges and the form's problems included)
      expect((await axeCount(page, `${name} ${w}`, scheme)).findings).toEqual([]);
    }
    // nothing wider than the window at any size
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name} at ${w}`).toBe(true);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function runsOf(scheduleId: string, count: number): Promise<ScheduleRunView[]> {
  const op = runner.engine.operator();
  for (let i = 0; i < 400; i++) {
    const { runs } = await runner.engine.call(op, 'schedule_runs', { scheduleId });
    if (runs.length >= count && runs.every((r) => r.outcome !== 'starting')) return runs;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`schedule ${scheduleId} never reached ${count} runs`);
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(REPO, 'out/renderer/index.html'))) throw new Error('run `npm run build` first: the e2e tests load out/renderer');
  if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
  home = makeHome();
  await startRoom();
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('dialog', (d) => void d.accept());
  await openSchedules();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (runner) {
    await closeUi(runner);
    await runner.close();
  }
  home?.cleanup();
});

describe('the Schedules screen', () => {
  it('empty: says there are none and how to add one', async () => {
    await page.getByText('No schedules yet').waitFor();
    await shoot('empty');
  });

  it('the add form refuses what cannot work, saying what to fix', async () => {
    const problem = page.getByTestId('schedule-problem');
    await page.getByRole('button', { name: 'Add schedule' }).click();
    await expect.poll(() => problem.textContent()).toMatch(/Give the schedule a name/);
    await page.getByLabel('Name').fill('nightly build');
    await page.getByLabel('When (cron)').fill('0 3 * *');
    await expect.poll(() => page.getByTestId('cron-preview').textContent()).toMatch(/has 4 fields: give five/);
    await page.getByRole('button', { name: 'Add schedule' }).click();
    await expect.poll(() => problem.textContent()).toMatch(/has 4 fields: give five/);
    await page.getByLabel('When (cron)').fill('0 3 * * *');
    await expect.poll(() => page.getByTestId('cron-preview').textContent()).toMatch(/^Next: /);
    await page.getByRole('button', { name: 'Add schedule' }).click();
    await expect.poll(() => problem.textContent()).toMatch(/Give the command to run/);
    // the room's own refusal, as it says it: a graph whose JSON is fine but whose stage is not
    await page.getByLabel('A graph (JSON)').check();
    await page.getByLabel('Graph, as ce run takes it').fill('{"stages": []}');
    await page.getByRole('button', { name: 'Add schedule' }).click();
    await expect.poll(() => problem.textContent()).toMatch(/a graph needs at least one stage/);
    await page.getByLabel('Graph, as ce run takes it').fill('{"stages": [');
    await page.getByRole('button', { name: 'Add schedule' }).click();
    await expect.poll(() => problem.textContent()).toMatch(/The graph is not JSON .*give it as "ce run" takes it/);
    await page.getByLabel('A command').check();
    await page.getByLabel('Time zone').fill('Mars/Olympus');
    await expect.poll(() => page.getByTestId('zone-help').textContent()).toMatch(/"Mars\/Olympus" is not a time zone/);
    await page.getByRole('button', { name: 'Add schedule' }).click();
    await expect.poll(() => problem.textContent()).toMatch(/"Mars\/Olympus" is not a time zone .*give an IANA name such as Europe\/Paris/);
    await shoot('form-errors');
  });

  it('adds a schedule: listed with its next due time in its zone', async () => {
    await page.getByLabel('Time zone').fill('Europe/Paris');
    await page.getByLabel('Command', { exact: true }).fill('true');
    await page.getByRole('button', { name: 'Add schedule' }).click();
    const item = page.locator('[data-schedule]', { hasText: 'nightly build' });
    await item.waitFor();
    // 03:00 in Paris is 02:00 UTC in January: 1 h 10 min after the room's clock
    await expect.poll(() => item.getByTestId('next-due').textContent()).toBe('Next: Mon, 7 Jan 2030, 03:00 (Europe/Paris), in 1 h 10 min');
    await expect.poll(() => page.getByTestId('schedule-problem').count()).toBe(0);
  });

  it('populated: ran, skipped, missed while the room was down and caught up, failed, a long name', async () => {
    const op = runner.engine.operator();
    const hourly = { cron: '0 * * * *', timeZone: 'UTC' };
    const long = (await runner.engine.call(op, 'schedule_add', { name: LONG, ...hourly, graph: { stages: [{ id: 'build', command: ['sleep', '600'] }, { id: 'test', command: 'true', dependsOn: ['build'] }] } })).schedule;
    const skip = (await runner.engine.call(op, 'schedule_add', { name: 'hourly check', ...hourly, catchUp: 'skip', graph: { stages: [{ id: 'check', command: 'true' }] } })).schedule;
    const agent = (await runner.engine.call(op, 'schedule_add', { name: 'triage', ...hourly, agent: { client: 'command', command: ['/nonexistent/agent'], task: 'triage the new issues', cwd: home.root } })).schedule;
    now = new Date('2030-01-07T01:00:05Z');
    await runsOf(long.id, 1);
    await runsOf(agent.id, 1);
    const first = await runsOf(skip.id, 1);
    await runner.engine.call(op, 'tasks_status', { graphId: first[0]?.graphId as string, until: 'ended', waitMs: 10_000, stages: false });
    now = new Date('2030-01-07T02:00:05Z');
    await runsOf(long.id, 2);
    await runsOf(skip.id, 2);
    await runsOf(agent.id, 2);
    // the room stops; the clock moves on 3 hours; it starts again
    await closeUi(runner);
    await runner.close();
    now = new Date('2030-01-07T05:10:00Z');
    await startRoom();
    await runsOf(long.id, 5);
    await runsOf(skip.id, 5);
    await openSchedules();
    const item = page.locator(`[data-schedule="${long.id}"]`);
    await expect.poll(() => item.locator('.schedule-runs li').count()).toBe(5);
    expect(await item.locator('.schedule-runs .badge').allTextContents()).toEqual(['ran late', 'missed', 'missed', 'skipped', 'ran']);
    await expect.poll(() => page.locator(`[data-schedule="${skip.id}"] .schedule-runs li[data-outcome="missed"]`).count()).toBe(3);
    expect(await page.locator(`[data-schedule="${agent.id}"] .schedule-runs .badge`).first().textContent()).toBe('failed');
    expect(await page.locator(`[data-schedule="${agent.id}"] .run-what`).first().textContent()).toMatch(/could not start it: .*not on the PATH|could not start it/);
    // the long name is cut to its line, whole in its tooltip
    expect(await item.locator('strong').getAttribute('title')).toBe(LONG);
    await shoot('populated');
  });

  it('remove: gone from the list (the screen updates from its event)', async () => {
    const item = page.locator('[data-schedule]', { hasText: 'hourly check' });
    await item.getByRole('button', { name: 'Remove hourly check' }).click();
    await expect.poll(() => item.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
