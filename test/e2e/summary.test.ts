/**
 * The Summary screen and Activity grouped, in real Chromium through the runner's own door (issue 43, item 6):
 * empty in a fresh room; after a scripted night (handoffs made, approved, rejected, waiting on input, addressed to
 * the person, one ready to merge with its checks; graphs passed and failed; agents ended well and badly) it lists
 * what waits oldest first, then what ended, then what is ready, each line opening what it is about; Activity
 * groups by handoff, graph and agent with counts and opens a group to its rows, its filters still applying.
 * Screenshots at 1440×900, 1024×768 and 390×844, light and dark, under test-output/ (and SHOTS_DIR when set).
 * Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import type { RunningRoom } from '../../src-main/server/runner';
import { GIT_IDENTITY, makeRepo } from '../helpers/git-repo';
import { axeCount } from './helpers/axe';
import { outputFile } from './helpers/open-ui';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let runner: RunningRoom;
let page: Page;
let lead: Client;
let dev: Client;
const pageErrors: string[] = [];
const LONG_AGENT = 'release-engineering-agent-on-the-build-machine-with-a-long-name';
const LONG_SUMMARY = 'Migrate every service of the payments platform to the new deployment pipeline, keeping the old one running until all of them are green';
const LONG_GRAPH = 'nightly: the whole integration suite against every supported database and browser combination';
const ids: Record<string, string> = {};
type H = { handoff: HandoffView };

const go = (name: string) => page.locator('.sidebar .nav-item', { hasText: name }).click();
const op = () => runner.engine.operator();

/** No serious or critical accessibility finding (axe-core: contrast, names, roles) in either theme. */
async function accessible(screen: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const count = await axeCount(page, screen, scheme);
    expect(count.findings, `${screen} ${scheme}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The screen at the three sizes, light and dark (pictures a person looks at, not assertions). */
async function shoot(name: string, prepare?: () => Promise<void>): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [[1440, 900], [1024, 768], [390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await prepare?.();
      await page.waitForTimeout(250); // layout settles
      const file = outputFile(`summary-${name}-${scheme}-${width}.png`);
      await page.screenshot({ path: file });
      if (process.env.SHOTS_DIR) {
        fs.mkdirSync(process.env.SHOTS_DIR, { recursive: true });
        fs.copyFileSync(file, path.join(process.env.SHOTS_DIR, path.basename(file)));
      }
      // nothing lays out wider than the window
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} ${width}`).toBeLessThanOrEqual(width);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

async function graphEnded(graphId: string): Promise<void> {
  while (!/completed|failed/.test((await runner.engine.call(op(), 'tasks_status', { graphId })).graph.state)) await new Promise((r) => setTimeout(r, 100));
}

/** Made by lead for the long-named agent, accepted and completed by it. */
async function completed(summary: string): Promise<string> {
  const { handoff } = await callTool<H>(lead, 'handoff_create', { summary, to: LONG_AGENT });
  await callTool(dev, 'handoff_accept', { handoffId: handoff.id });
  await callTool(dev, 'handoff_complete', { handoffId: handoff.id, result: 'done' });
  return handoff.id;
}

/** An agent (the command client) whose program exits with `code`; resolves once the room recorded its end. */
async function agentThatExits(code: number): Promise<void> {
  const script = path.join(room.home.root, `agent-exit-${code}.sh`);
  fs.writeFileSync(script, `#!/bin/sh\necho working\nexit ${code}\n`, { mode: 0o755 });
  const ended = new Promise<void>((resolve) => {
    const off = runner.engine.bus.subscribe((e) => {
      if (e.kind === 'agent.ended' && (e.data as { exitCode?: number }).exitCode === code) {
        off();
        resolve();
      }
    });
  });
  await runner.engine.call(op(), 'agent_start', { client: 'command', command: [script], cwd: room.home.root });
  await ended;
}

/** An agent whose program asks the person (OSC 9) and waits; resolves once its terminal reads waiting. */
async function agentThatAsks(question: string): Promise<string> {
  const script = path.join(room.home.root, 'agent-asks.sh');
  fs.writeFileSync(script, `#!/bin/sh\nprintf '\\033]9;%s\\007' '${question}'\nexec sleep 300\n`, { mode: 0o755 });
  const { agent } = await runner.engine.call(op(), 'agent_start', { client: 'command', command: [script], cwd: room.home.root });
  await expect.poll(async () => (await runner.engine.call(op(), 'shell_list', {})).shells.find((s) => s.id === agent.shellId)?.status.state, { timeout: 15_000 }).toBe('waiting');
  return agent.shellId;
}

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: ['lead', LONG_AGENT] });
  ({ runner, page } = room);
  [lead, dev] = room.agents as [Client, Client];
}, 60_000);

afterAll(() => room?.close());

describe('the Summary screen', () => {
  it('says all is quiet in a fresh room', async () => {
    await go('Summary');
    await page.getByText('All quiet').waitFor();
    expect(await page.locator('.summary-section').count()).toBe(0);
    await shoot('empty');
  });

  it('after a night of work: what waits (oldest first), what ended, what is ready to merge with its checks', { timeout: 180_000 }, async () => {
    // the night, in order
    const repo = makeRepo(path.join(room.home.root, 'app'), { 'README.md': '# app\n' });
    const { handoff: work } = await callTool<H>(lead, 'handoff_create', { summary: 'Fix the parser so a quoted comma no longer splits a field', to: LONG_AGENT, workspace: { repo } });
    ids.ready = work.id;
    await callTool(dev, 'handoff_accept', { handoffId: work.id });
    const { shell } = await callTool<{ shell: { id: string } }>(dev, 'shell_open', { handoffId: work.id, shell: '/bin/sh', env: { ...GIT_IDENTITY, PS1: '$ ' } });
    await callTool(dev, 'shell_run', { shellId: shell.id, command: "printf 'x\\n' > parser.txt && git add -A && git commit -qm 'Fix the parser'", timeoutMs: 30_000 });
    await callTool(dev, 'shell_close', { shellId: shell.id });
    const checks = await callTool<{ graphId: string }>(dev, 'tasks_run', { name: 'parser checks', handoffId: work.id, stages: [{ id: 'unit', command: 'test -f parser.txt' }] });
    await graphEnded(checks.graphId);
    await callTool(dev, 'handoff_complete', { handoffId: work.id, result: 'Fixed; checks pass.' });
    ids.asked = (await callTool<H>(lead, 'handoff_create', { summary: 'Pick the log format', to: LONG_AGENT })).handoff.id;
    await callTool(dev, 'handoff_accept', { handoffId: ids.asked });
    await callTool(dev, 'handoff_request_input', { handoffId: ids.asked, requests: { format: { message: 'JSON or text?' } } });
    ids.approved = await completed('Write the release notes for 2.4');
    await runner.engine.call(op(), 'handoff_approve', { handoffId: ids.approved, reason: 'Reads well.' });
    ids.rejected = await completed(LONG_SUMMARY);
    await runner.engine.call(op(), 'handoff_reject', { handoffId: ids.rejected, reason: 'The billing service still deploys through the old pipeline.' });
    ids.forMe = (await callTool<H>(lead, 'handoff_create', { summary: 'Look over the roadmap for the next quarter', to: 'operator' })).handoff.id;
    ids.passed = (await callTool<{ graphId: string }>(lead, 'tasks_run', { name: 'nightly build', stages: [{ id: 'build', command: 'true' }] })).graphId;
    ids.failed = (await callTool<{ graphId: string }>(lead, 'tasks_run', { name: LONG_GRAPH, stages: [{ id: 'postgres-16-chromium', command: 'exit 3' }, { id: 'sqlite-firefox', command: 'exit 4' }] })).graphId;
    await graphEnded(ids.passed);
    await graphEnded(ids.failed);
    await agentThatExits(0);
    await agentThatExits(2);
    ids.asking = await agentThatAsks('Allow edits to src/parser.ts and its tests?');
    // spend and schedules: an envelope on the asking agent's run, a schedule due at 03:00
    await runner.engine.call(op(), 'envelope_set', { scope: 'agent', target: ids.asking, maxCostUsd: 2, maxWallMs: 4 * 3_600_000 });
    ids.schedule = (await runner.engine.call(op(), 'schedule_add', { name: 'nightly build', cron: '0 3 * * *', timeZone: 'UTC', catchUp: 'skip', graph: { stages: [{ id: 'build', command: 'true' }] } })).schedule.id;

    await go('Summary');
    const sections = page.locator('.summary-section');
    await expect.poll(async () => (await sections.evaluateAll((els) => els.map((e) => e.getAttribute('data-section')))).join(','), { timeout: 20_000 }).toBe('waiting,ended,ready,spend,schedules');
    const waiting = page.locator('.summary-waiting .summary-text');
    expect(await waiting.allInnerTexts()).toEqual([
      'handoff “Fix the parser so a quoted comma no longer splits a field” from release-engineering-agent-on-the-build-machine-with-a-long-name waits for your review',
      'handoff “Pick the log format” from release-engineering-agent-on-the-build-machine-with-a-long-name waits for your answer',
      'handoff “Look over the roadmap for the next quarter” from lead is addressed to you',
      'agent agent-3 waits on a question: “Allow edits to src/parser.ts and its tests?”',
    ]);
    const ended = page.locator('.summary-ended');
    expect(await ended.locator('h3 .summary-counts').innerText()).toMatch(/1 approved.*1 rejected|1 rejected.*1 approved/);
    expect(await ended.locator('h3 .summary-counts').innerText()).toContain('1 graph failed');
    expect(await ended.locator('.summary-item.tone-bad').count()).toBeGreaterThanOrEqual(3); // the rejection, the failed graph, the failed agent
    expect(await ended.innerText()).toContain(`graph “${LONG_GRAPH.slice(0, 60)}`);
    const ready = page.locator('.summary-ready .summary-item');
    expect(await ready.count()).toBe(1);
    expect(await ready.locator('.summary-detail').allInnerTexts()).toEqual(['main has not moved; merges as a fast-forward', 'checks passed']);
    expect(await page.locator('.summary-spend .summary-text').allInnerTexts()).toEqual([`envelope on the agent run in terminal ${ids.asking} (agent-3): $0.00 of $2.00, wall-clock limit 4 h`]);
    expect(await page.locator('.summary-schedules .summary-text').innerText()).toMatch(/^schedule "nightly build" \(0 3 \* \* \*\): nothing due in this window; next due \w{3}, \d+ \w{3} \d{4}, 03:00 \(UTC\)$/);
    await accessible('summary');
    await shoot('night');
    await shoot('night-spend-schedules', () => page.locator('.summary-schedules').scrollIntoViewIfNeeded());

    // a line opens what it is about: the question waiting, in the inbox
    await page.locator('.summary-waiting .summary-text', { hasText: 'Pick the log format' }).click();
    await expect.poll(() => page.locator('main.screen').getAttribute('aria-label')).toBe('inbox');
    await page.locator(`.handoff-detail[data-handoff-id="${ids.asked}"]`).waitFor();
    // the failed graph, in Graphs
    await go('Summary');
    await page.locator('.summary-ended .summary-text', { hasText: 'failed' }).filter({ hasText: 'graph' }).first().click();
    await expect.poll(() => page.locator('.graph-row.active').getAttribute('data-graph-id')).toBe(ids.failed);
    // a schedule, in Schedules
    await go('Summary');
    await page.locator('.summary-schedules .summary-text').first().click();
    await expect.poll(() => page.locator('main.screen').getAttribute('aria-label')).toBe('schedules');
    // the agent asking, in Terminals
    await go('Summary');
    await page.locator('.summary-waiting .summary-text', { hasText: 'waits on a question' }).click();
    await expect.poll(() => page.locator('main.screen').getAttribute('aria-label')).toBe('terminals');
    await runner.engine.call(op(), 'agent_stop', { shellId: ids.asking as string, revoke: true });
    expect(pageErrors).toEqual([]);
  });
});

describe('Activity', () => {
  it('reads each event as a sentence', async () => {
    await go('Activity');
    await page.getByLabel('Filter by kind').selectOption('handoff.approved');
    const row = page.locator('.activity li.ev-row').first();
    await expect.poll(() => row.locator('.ev-text').innerText()).toBe('operator approved handoff “Write the release notes for 2.4”: “Reads well.”');
    await page.getByLabel('Filter by kind').selectOption('');
  });

  it('groups by handoff, graph and agent with counts, opens a group to its rows, and keeps its filters', async () => {
    await go('Activity');
    await page.getByLabel('Group events').selectOption('handoff');
    const group = (key: string) => page.locator(`.ev-group[data-group-key="${key}"]`);
    await group(ids.approved as string).waitFor();
    expect(await group(ids.approved as string).locator('.ev-group-name').innerText()).toBe('handoff “Write the release notes for 2.4”');
    expect(await group(ids.approved as string).locator('.ev-group-counts').innerText()).toBe('1 approved, 1 completed');
    expect(await group(ids.rejected as string).locator('.ev-group-counts').getAttribute('class')).toContain('bad');
    // opened: its events as rows, newest first
    await group(ids.approved as string).locator('summary').click();
    const kinds = () => group(ids.approved as string).locator('li.ev-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-event-kind')));
    await expect.poll(kinds).toEqual(['handoff.approved', 'handoff.completed', 'handoff.accepted', 'handoff.created']);
    await accessible('activity grouped');
    await shoot('activity-by-handoff');

    await page.getByLabel('Group events').selectOption('graph');
    await group(ids.failed as string).waitFor();
    expect(await group(ids.failed as string).locator('.ev-group-counts').innerText()).toContain('1 graph failed');
    await page.getByLabel('Group events').selectOption('agent');
    await group(LONG_AGENT).waitFor();
    await shoot('activity-by-agent');
    // the filters still apply: only the approvals, grouped by handoff
    await page.getByLabel('Group events').selectOption('handoff');
    await page.getByLabel('Filter by kind').selectOption('handoff.approved');
    await expect.poll(() => page.locator('.ev-group').count()).toBe(1);
    await page.getByLabel('Search events').fill('no such thing');
    await page.getByText('No events match.').waitFor();
    await page.getByLabel('Search events').fill('');
    await page.getByLabel('Filter by kind').selectOption('');
    await page.getByLabel('Group events').selectOption('');
    expect(pageErrors).toEqual([]);
  });
});
