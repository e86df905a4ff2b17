/**
 * The Agents screen's Spend card, in real Chromium: what agents spent (today, 7 days, tokens) as their clients
 * reported it, a ceiling set on a running agent from the card, and the card showing it stopped at its cost with
 * the words the inbox gets. The agent is the scripted client that exports OTLP metrics the way Claude Code does.
 * Needs `npm run build`. Screenshots go to test-output/ (and /work/shots/wt-spend/ when that folder exists).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { outputFile } from './helpers/open-ui';
import { startUiRoom, type UiRoom } from './helpers/ui-room';

const SCRIPT = path.resolve(__dirname, '../helpers/scripted-otel-client.mjs');
const SHOTS = '/work/shots/wt-spend';
let room: UiRoom;
let runner: RunningRoom;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: [] });
  ({ runner, page } = room);
}, 60_000);
afterAll(() => room?.close());

async function shot(name: string): Promise<void> {
  await page.getByRole('region', { name: 'Spend' }).screenshot({ path: outputFile(`spend-${name}.png`) });
  if (fs.existsSync(path.dirname(SHOTS))) {
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `agents-spend-${name}.png`), fullPage: false });
  }
}

describe('Spend on the Agents screen', () => {
  it('shows what each agent spent, sets a ceiling on a running one, and shows it stopped at its cost', { timeout: 90_000 }, async () => {
    const op = runner.engine.operator();
    // an agent with a long name that reported earlier (a participant the room did not start)
    const long = 'nightly-refactoring-agent-with-a-very-long-name';
    const { token } = await runner.engine.call(op, 'participant_add', { name: long, capabilities: ['read', 'write'] });
    const caller = runner.engine.authenticate(token);
    if (!caller) throw new Error('no caller');
    const point = (metric: string, value: number, type?: string) => ({ metric, value, temporality: 'delta' as const, series: `${metric}${type ?? ''}`, attributes: type ? { type } : {} });
    await runner.engine.call(caller, 'spend_record', { client: 'claude-code', points: [point('claude_code.cost.usage', 12.3456), point('claude_code.token.usage', 1_234_567, 'input'), point('claude_code.token.usage', 45_678, 'output')] });

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Agents/ }).click();
    const card = page.getByRole('region', { name: 'Spend' });
    await expect.poll(() => card.innerText()).toMatch(new RegExp(`${long}\\s+\\$12\\.35\\s+\\$12\\.35\\s+1,235k / 46k`));
    expect(await card.innerText()).toContain('Start an agent to put a ceiling on it');

    // a running agent: the scripted client, reporting as Claude Code does
    const dir = fs.mkdtempSync(path.join(path.dirname(runner.engine.room.location.markdownPath), 'spend-ui-'));
    const { agent } = await runner.engine.call(op, 'agent_start', { client: 'command', command: [process.execPath, SCRIPT, '--export-ms', '300', '--cost', '0.01', '--turn-ms', '200'], cwd: dir });
    await expect.poll(() => card.getByLabel('Stop').locator('option').allInnerTexts(), { timeout: 15_000 }).toEqual([`${agent.participant} (Command)`]);
    await card.getByLabel('at $').fill('0.2');
    await card.getByRole('button', { name: 'Set ceiling' }).click();
    const envelope = card.locator(`[data-envelope="${agent.shellId}"]`);
    await expect.poll(() => envelope.innerText(), { timeout: 10_000 }).toMatch(/watching/);
    await shot('watching-1440');
    await expect.poll(() => envelope.innerText(), { timeout: 60_000, interval: 500 }).toMatch(new RegExp(`stopped at cost: ${agent.participant} \\(terminal ${agent.shellId}\\) spent \\$0\\.\\d\\d of its \\$0\\.20`));
    await expect.poll(() => card.innerText(), { timeout: 15_000 }).toMatch(new RegExp(`${agent.participant}\\s+\\$0\\.[2-9]\\d`));
    for (const [w, h, name] of [[1440, 900, '1440'], [1024, 768, '1024'], [390, 844, '390']] as const) {
      await page.setViewportSize({ width: w, height: h });
      await card.scrollIntoViewIfNeeded();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await shot(`stopped-${name}-${scheme}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    // nothing runs off the card on a phone
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await card.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    // Clear takes it off
    await envelope.getByRole('button', { name: /Clear the envelope/ }).click();
    await expect.poll(() => envelope.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
