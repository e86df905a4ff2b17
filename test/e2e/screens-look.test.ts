/**
 * Every screen with a populated room, in real Chromium through the runner's own door, at 1440, 1024 and 390
 * (a phone) wide in light and dark (saved to test-output/ for a person to look at), with axe-core's count of
 * violations per screen printed and none serious or critical: the first start (an empty room
 * shows the endpoint and how to connect an agent); then agents played by real MCP clients fill the room
 * (shells, a failed diamond graph with a very long name, handoffs with a markdown result and an input
 * request, a participant with a very long name). Agents shows who is connected now and their last call: a
 * 2025 MCP session connects and calls (connected, its tool), disconnects (not connected); another is revoked
 * from the page (not connected). Needs `npm run build`.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import type { RunningRoom } from '../../src-main/server/runner';
import { BASH } from '../engine/shells/helpers';
import { axeCount, printAxeCounts, tintContrast, type AxeCount } from './helpers/axe';
import { graphViewSettled, outputFile } from './helpers/open-ui';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let runner: RunningRoom;
let page: Page;
const pageErrors: string[] = [];
const LONG_AGENT = 'claude-code-on-the-build-machine-in-the-basement-with-long-name'; // 63 of 64 chars
const LONG_GRAPH = 'nightly: build every package, run the unit and integration suites, then package the installers for all platforms';
const SIZES = [[1440, 900], [1024, 640], [390, 844]] as const;
const axeCounts: AxeCount[] = [];
const clients: Client[] = [];

/** A 2025-era MCP client (a session from initialize until closed) with its own token. */
async function legacyAgent(name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const added = await runner.engine.call(runner.engine.operator(), 'participant_add', { name, capabilities: ['read', 'write'] });
  const client = new Client({ name, version: '1' }, { versionNegotiation: { mode: 'legacy' } });
  const transport = new StreamableHTTPClientTransport(runner.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${added.token}` } } });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

/**
 * Saves the screen at a desktop's, a laptop's and a phone's width in both schemes, after `ready` (which waits
 * for what the picture must show), and counts what axe-core finds on it in each scheme (at the desktop's and
 * the phone's width, whose layouts differ most).
 */
async function shoot(name: string, ready: () => Promise<unknown>): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of SIZES) {
      await page.setViewportSize({ width, height });
      await ready();
      await page.waitForTimeout(250); // layout settles (a picture, not an assertion)
      await page.screenshot({ path: outputFile(`look-${name}-${scheme}-${width}.png`) });
      if (width !== 1024) axeCounts.push(await axeCount(page, `${name} ${width}`, scheme));
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

const go = (screen: RegExp) => page.getByRole('button', { name: screen }).first().click();
const row = (name: string) => page.locator(`tr[data-participant="${name}"]`);

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: [] });
  ({ runner, page } = room);
}, 60_000);

afterAll(async () => {
  if (axeCounts.length > 0) printAxeCounts(axeCounts);
  for (const c of clients) await c.close().catch(() => undefined);
  await room?.close();
});

/** The contrast of the active sidebar item's text on what is behind it (its tint over the sidebar), per WCAG 2. */
const activeNavContrast = (p: typeof page) => tintContrast(p, '.nav-item.active', '.nav-item', '.sidebar');

describe('first start', () => {
  it('an empty room shows its endpoint and how to connect an agent', async () => {
    await page.getByTestId('first-run').waitFor();
    expect(await page.getByTestId('first-run-endpoint').innerText()).toBe(runner.mcpUrl.toString());
    // the terminal way names this room's file: a room started with --room is not the default one ce would find
    expect(await page.getByTestId('first-run-cli').innerText()).toBe(`ce participant add claude --can read,write --room ${runner.engine.room.location.markdownPath}`);
    await shoot('first-run', () => page.getByTestId('first-run').waitFor());
    // one page heading, and the active screen's name readable on its tint (WCAG AA, 4.5:1) in both schemes
    expect(await page.locator('h1').allInnerTexts()).toEqual(['Commonroom']);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await activeNavContrast(page), scheme).toBeGreaterThanOrEqual(4.5);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('button', { name: 'Add an agent' }).click();
    await page.getByLabel('Name').waitFor();
    await go(/Terminals/);
  });
});

describe('agents: connected now and their last call', () => {
  it('a 2025 session shows connected with its last call, then not connected once closed', async () => {
    const { client, transport } = await legacyAgent('builder');
    await page.getByTestId('first-run').waitFor({ state: 'detached' });
    await callTool(client, 'shell_list', {});
    await go(/Agents/);
    await expect.poll(() => row('builder').getByTestId('presence').getAttribute('data-connected')).toBe('yes');
    await expect.poll(() => row('builder').getByTestId('last-call').innerText()).toContain('shell_list');
    await transport.terminateSession();
    await expect.poll(() => row('builder').getByTestId('presence').getAttribute('data-connected')).toBe('no');
    expect(await row('builder').getByTestId('last-call').innerText()).toContain('shell_list');
  });

  it('revoking a connected agent from the page ends its session: not connected', async () => {
    await legacyAgent('short-lived');
    await expect.poll(() => row('short-lived').getByTestId('presence').getAttribute('data-connected')).toBe('yes');
    await row('short-lived').getByRole('button', { name: 'Revoke' }).click();
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.locator('tr[data-participant="short-lived"].revoked').waitFor();
    await expect.poll(() => row('short-lived').getByTestId('presence').getAttribute('data-connected')).toBe('no');
  });
});

describe('every screen, populated', () => {
  it('terminals, graphs, inbox, agents, history and activity at three widths in both themes', async () => {
    const { client: worker } = await legacyAgent(LONG_AGENT);
    const { client: asker } = await legacyAgent('asker');
    const shell = (await callTool<{ shell: { id: string } }>(worker, 'shell_open', { ...BASH, name: 'build: npm run build --workspaces --if-present' })).shell;
    await worker.callTool({ name: 'shell_io', arguments: { shellId: shell.id, text: "printf 'compiling %s\\n' engine mcp renderer; printf 'built in 4.2s\\n'\n", wait: { until: 'idle', idleMs: 200 } } });
    const graph = await callTool<{ graphId: string }>(worker, 'tasks_run', {
      name: LONG_GRAPH,
      stages: [
        { id: 'build', command: ['sh', '-c', 'echo built'] },
        { id: 'unit-tests', command: ['sh', '-c', 'echo ok'], dependsOn: ['build'] },
        { id: 'integration-tests-against-the-staging-database', command: ['sh', '-c', 'echo connection refused >&2; exit 2'], dependsOn: ['build'] },
        { id: 'package', command: 'true', dependsOn: ['unit-tests', 'integration-tests-against-the-staging-database'] },
      ],
    });
    const { handoff } = await callTool<{ handoff: HandoffView }>(asker, 'handoff_create', {
      summary: 'Review the migration plan for the billing tables before Friday’s release, including the rollback steps and the backfill batch size',
      to: LONG_AGENT,
      constraints: 'No downtime. Keep the old columns for a week.',
    });
    await callTool(worker, 'handoff_accept', { handoffId: handoff.id });
    await callTool(worker, 'handoff_complete', {
      handoffId: handoff.id,
      result: '## Plan\n\n1. Add the new columns\n2. Backfill in batches of `10,000`\n3. Switch reads\n\n| step | risk |\n| --- | --- |\n| backfill | load |\n\n> Rollback: drop the new columns.',
      artifacts: [{ uri: 'file:///work/plan.md', name: 'plan.md', mediaType: 'text/markdown' }],
    });
    const asking = (await callTool<{ handoff: HandoffView }>(asker, 'handoff_create', { summary: 'Which region should the cache live in?', to: LONG_AGENT })).handoff;
    await callTool(worker, 'handoff_accept', { handoffId: asking.id });
    await callTool(worker, 'handoff_request_input', { handoffId: asking.id, requests: { region: { message: 'Pick a region', requestedSchema: { type: 'object', properties: { region: { type: 'string', enum: ['eu-west', 'us-east'] } }, required: ['region'] } } } });

    await go(/Terminals/);
    await page.locator(`.shell-item[data-shell-id="${shell.id}"]`).click();
    await shoot('terminals', () => page.locator('.terminal-host .xterm-screen').waitFor());
    // dim text an agent prints is drawn at 4.5:1 at least (as VS Code's terminal), where axe cannot see (a canvas)
    expect(await page.evaluate((id) => (globalThis as unknown as { commonroomInspect: { terminalMinimumContrast(id: string): number | null } }).commonroomInspect.terminalMinimumContrast(id), shell.id)).toBe(4.5);
    // a shell's status pill is its own quiet badge, not the sidebar count's solid accent (a rule once leaked)
    const pill = await page.getByTestId('shell-list-status').first().evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).marginLeft]);
    const accent = await page.locator('.nav-item .badge').first().evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(pill[0]).not.toBe(accent);
    expect(pill[1]).toBe('0px');

    await go(/Graphs/);
    await page.locator(`.graph-row[data-graph-id="${graph.graphId}"]`).click();
    await expect.poll(() => page.getByTestId('graph-state').innerText(), { timeout: 20_000 }).toContain('failed');
    await shoot('graphs-list', () => page.locator('.graph-row').first().waitFor());
    await graphViewSettled(page); // shoot() resized the window: the view is framed again first
    await page.locator('.react-flow__node[data-id="integration-tests-against-the-staging-database"]').click();
    await expect.poll(() => page.getByTestId('stage-log').innerText()).toContain('connection refused');
    await shoot('graphs-diamond', () => page.getByTestId('stage-log').waitFor());
    // at 1024 px, with a stage open, the graph keeps most of the window (it had 224 px)
    await page.setViewportSize({ width: 1024, height: 640 });
    await expect.poll(async () => (await page.getByTestId('graph-dag').boundingBox())?.width ?? 0).toBeGreaterThanOrEqual(460);
    await page.setViewportSize({ width: 1280, height: 800 });

    await go(/Inbox/);
    await page.locator(`.inbox-item[data-handoff-id="${handoff.id}"]`).click();
    await page.locator(`.handoff-detail[data-handoff-id="${handoff.id}"] [data-testid="handoff-timeline"]`).waitFor();
    // GitHub-flavoured markdown: the agent's table is a table, not a line of pipes
    const result = page.locator(`.handoff-detail[data-handoff-id="${handoff.id}"] [data-testid="result"]`);
    expect(await result.locator('table th').allInnerTexts()).toEqual(['step', 'risk']);
    expect(await result.locator('table td').allInnerTexts()).toEqual(['backfill', 'load']);
    await shoot('inbox-result', () => page.locator(`.handoff-detail[data-handoff-id="${handoff.id}"]`).waitFor());
    await page.locator(`.inbox-item[data-handoff-id="${asking.id}"]`).click();
    await shoot('inbox-input', () => page.locator('form[data-request-key="region"]').waitFor());

    await go(/Agents/);
    await expect.poll(() => row(LONG_AGENT).getByTestId('presence').getAttribute('data-connected')).toBe('yes');
    const name = row(LONG_AGENT).locator('.person-name .truncate');
    expect(await name.getAttribute('title')).toBe(LONG_AGENT);
    // cut with an ellipsis, not overflowing its column
    expect(await name.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await shoot('agents', () => row(LONG_AGENT).waitFor());

    // an ended handoff for History: cancelled by its owner with a reason
    const ended = (await callTool<{ handoff: HandoffView }>(asker, 'handoff_create', { summary: 'Tidy the build scripts once the pipeline has moved', to: LONG_AGENT })).handoff;
    await callTool(asker, 'handoff_cancel', { handoffId: ended.id, reason: 'Not needed after the pipeline move.' });
    await go(/History/);
    await page.locator(`.history-item[data-handoff-id="${ended.id}"]`).click();
    await shoot('history', () => page.getByTestId('history-reason').filter({ hasText: 'Not needed after the pipeline move.' }).waitFor());

    await go(/Activity/);
    await shoot('activity', () => page.locator('li[data-event-kind]').first().waitFor());
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('axe-core finds no serious or critical violation on any screen, in either scheme', () => {
    expect(axeCounts.map((c) => `${c.screen} ${c.scheme}`)).toEqual(
      ['first-run', 'terminals', 'graphs-list', 'graphs-diamond', 'inbox-result', 'inbox-input', 'agents', 'history', 'activity'].flatMap((s) => [`${s} 1440 light`, `${s} 390 light`, `${s} 1440 dark`, `${s} 390 dark`]),
    );
    expect(axeCounts.flatMap((c) => c.findings.map((f) => `${c.screen} ${c.scheme}: ${f}`))).toEqual([]);
  });
});
