/**
 * An agent the room started, as the person sees it in real Chromium: its terminal in the list with its client
 * and its status in words, "waiting for you" when it asks (with the count beside Terminals in the sidebar),
 * and back to what it does once the person types into it. Screenshots go to test-output/screens/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/env';
import { realClients } from '../helpers/real-clients';
import { notesOf, recordNotifications } from './helpers/notifications';
import { startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
const pageErrors: string[] = [];
const SHOTS = path.join(REPO, 'test-output', 'screens');

beforeAll(async () => {
  room = await startUiRoom({
    pageErrors,
    agents: [],
    async prepare(context) {
      await recordNotifications(context);
    },
  });
  fs.mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(() => room?.close());

describe('an agent started in the room, on the Terminals screen', () => {
  it('shows its client, its status as it changes, and the count of terminals waiting for the person', { timeout: 90_000 }, async () => {
    const { runner, page } = room;
    const dir = fs.mkdtempSync(path.join(path.dirname(runner.engine.room.location.markdownPath), 'agent-'));
    const script = path.join(dir, 'mimic-claude.sh');
    fs.writeFileSync(
      script,
      ['#!/bin/sh', 'printf "\\033]0;mimic: refactoring the parser\\007"', 'curl -s -o /dev/null -X POST -H "Authorization: Bearer $COMMONROOM_TOKEN" -H "Content-Type: application/json" -d "{}" "${COMMONROOM_MCP_URL%/mcp}/api/room_info"', 'i=0; while [ $i -lt 10 ]; do echo "editing src/parser.ts ($i)"; i=$((i+1)); sleep 0.1; done', "printf 'Edit src/parser.ts?\\n  1. Yes\\n  2. No\\n\\033]9;mimic needs your permission to edit src/parser.ts\\007'", 'read answer', 'echo "answered $answer"; sleep 600'].join('\n'),
      { mode: 0o755 },
    );
    const { agent } = await runner.engine.call(runner.engine.operator(), 'agent_start', { client: 'command', command: [script], cwd: dir });
    await page.getByRole('button', { name: 'Terminals' }).click();
    const item = page.locator(`.shell-item[data-shell-id="${agent.shellId}"]`);
    await item.waitFor();
    await item.click();
    const listStatus = item.getByTestId('shell-list-status');
    await expect.poll(() => listStatus.innerText(), { timeout: 20_000 }).toBe('waiting for you');
    await expect.poll(() => page.getByTestId('terminals-waiting-badge').innerText()).toBe('1');
    expect(await page.getByTestId('shell-status').innerText()).toBe('waiting for you');
    expect(await page.getByTestId('shell-status').getAttribute('title')).toBe('mimic needs your permission to edit src/parser.ts');
    // one desktop notification for this wait, naming the agent and what it asks
    const notes = () => notesOf(page);
    await expect.poll(notes).toEqual(['Command (agent) is waiting for you: mimic needs your permission to edit src/parser.ts']);
    // beside its terminal, what it asked of the room (its own token, from the run's environment)
    await expect.poll(() => page.getByTestId('agent-calls').innerText(), { timeout: 15_000 }).toMatch(/room_info\s+ok/);
    await page.screenshot({ path: path.join(SHOTS, 'terminals-agent-waiting.png') });
    // the person answers in the terminal: the wait is over, the count goes
    await page.locator('.terminal-host').click();
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
    await expect.poll(() => listStatus.innerText(), { timeout: 20_000 }).not.toBe('waiting for you');
    expect(await page.getByTestId('terminals-waiting-badge').count()).toBe(0);
    expect(await notes()).toHaveLength(1); // not again for the same wait
    await page.screenshot({ path: path.join(SHOTS, 'terminals-agent-answered.png') });

    // the Agents screen shows the agent's terminal with its status; it opens that terminal
    await page.getByRole('button', { name: 'Agents' }).click();
    const row = page.locator(`tr[data-participant="${agent.participant}"]`);
    const terminal = row.getByTestId('agent-terminal');
    await expect.poll(() => terminal.innerText()).toBe('Command');
    await expect.poll(() => row.locator('.agent-terminals .badge').innerText()).not.toBe('waiting for you');
    await page.screenshot({ path: path.join(SHOTS, 'agents-with-terminals.png') });
    await terminal.click();
    await expect.poll(() => page.locator('.shell-item.selected').getAttribute('data-shell-id')).toBe(agent.shellId);

    // Activity has the agent's start, by the person; opening it selects its terminal
    await page.getByRole('button', { name: 'Activity' }).click();
    const started = page.locator('li[data-event-kind="agent.started"]').filter({ hasText: agent.participant });
    await started.waitFor();
    expect(await started.locator('.ev-actor').innerText()).toBe('operator');
    await page.screenshot({ path: path.join(SHOTS, 'activity-agent-started.png') });
    await page.getByRole('button', { name: 'Graphs' }).click();
    await page.getByRole('button', { name: 'Activity' }).click();
    await started.getByRole('button', { name: agent.participant }).click();
    await expect.poll(() => page.locator('.shell-item.selected').getAttribute('data-shell-id')).toBe(agent.shellId);
    expect(pageErrors).toEqual([]);
  });

  const { bin, reason: noGemini } = realClients(['gemini']);
  it.skipIf(noGemini !== '')(`is started from the Terminals screen's New agent: a real Gemini CLI, found on the PATH with its version, opens asking the person to sign in${noGemini ? ` (skipped: ${noGemini})` : ''}`, { timeout: 90_000 }, async () => {
    const { page } = room;
    // the room process (this test's) finds clients on its PATH
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath ?? ''}`;
    try {
      await page.getByRole('button', { name: 'Terminals' }).click();
      await page.getByTestId('new-agent').click();
      const dialog = page.getByRole('dialog', { name: 'New agent' });
      const gemini = dialog.getByRole('radio', { name: /Gemini CLI/ });
      await gemini.waitFor();
      expect(await dialog.locator('label').filter({ hasText: 'Gemini CLI' }).innerText()).toMatch(/Gemini CLI\s+\d+\.\d+\.\d+/);
      await gemini.check();
      // this room is the default one, in Commonroom's data folder (read-only to agents): a folder must be given
      await dialog.getByTestId('start-agent').click();
      await expect.poll(() => dialog.getByTestId('new-agent-problem').innerText()).toMatch(/say which folder the agent works in/);
      const work = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-new-agent-'));
      await dialog.getByLabel('Folder', { exact: true }).fill(work);
      await page.screenshot({ path: path.join(SHOTS, 'terminals-new-agent.png') });
      await dialog.getByTestId('start-agent').click();
      await dialog.waitFor({ state: 'detached' });
      const item = page.locator('.shell-item.selected');
      await expect.poll(() => item.innerText(), { timeout: 10_000 }).toMatch(/Gemini CLI · gemini-cli/);
      await expect.poll(() => item.getByTestId('shell-list-status').innerText(), { timeout: 45_000 }).toBe('waiting for you');
      expect(await page.getByTestId('shell-status').getAttribute('title')).toMatch(/authenticate/);
      await page.screenshot({ path: path.join(SHOTS, 'terminals-gemini-sign-in.png') });
      // stopped (its token kept): it is listed as an earlier agent, and Start again brings it back as itself
      const stoppedId = await item.getAttribute('data-shell-id');
      await room.runner.engine.call(room.runner.engine.operator(), 'agent_stop', { shellId: stoppedId as string });
      const earlier = page.getByTestId('earlier-agent').filter({ hasText: 'gemini-cli' });
      await earlier.waitFor({ timeout: 15_000 });
      await page.screenshot({ path: path.join(SHOTS, 'terminals-earlier-agents.png') });
      await earlier.getByRole('button', { name: 'Start again' }).click();
      await expect.poll(() => page.locator('.shell-item.selected').getAttribute('data-shell-id'), { timeout: 15_000 }).not.toBe(stoppedId);
      await expect.poll(() => page.locator('.shell-item.selected').innerText()).toMatch(/Gemini CLI · gemini-cli/);
      expect(await page.getByTestId('earlier-agent').filter({ hasText: 'gemini-cli' }).count()).toBe(0);
    } finally {
      process.env.PATH = savedPath;
    }
    expect(pageErrors).toEqual([]);
  });
});
