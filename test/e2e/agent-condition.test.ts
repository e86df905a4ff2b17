/**
 * An agent that stalls and one stopped at its usage limit, as the person sees them in real Chromium: the
 * badge in the Terminals list and the terminal's header ("stalled 1 s", "limited until 03:00"), the line under
 * the header with the resume counted down to and its Cancel, one desktop notification each, and the Agents
 * screen's badge. The agents are a stand-in for Claude Code (test/engine/agents/fixtures/stand-in-client.mjs,
 * as `claude` first on the room's PATH). Screenshots: /work/shots/wt-stalls/ (or test-output/screens/).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../src-main/common/agent-condition-text';
import { REPO } from '../helpers/env';
import { notesOf, recordNotifications } from './helpers/notifications';
import { startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
const pageErrors: string[] = [];
const SHOTS = fs.existsSync('/work/shots') ? '/work/shots/wt-stalls' : path.join(REPO, 'test-output', 'screens');
const PATH = process.env.PATH;
let dir: string;

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: [], limits: { agentWatchTickMs: 100 }, prepare: recordNotifications });
  dir = fs.mkdtempSync(path.join(path.dirname(room.runner.engine.room.location.markdownPath), 'watch-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(path.join(dir, 'bin', 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(REPO, 'test/engine/agents/fixtures/stand-in-client.mjs')}" "$@"\n`, { mode: 0o755 });
  process.env.PATH = `${path.join(dir, 'bin')}:${PATH ?? ''}`;
  fs.mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  process.env.PATH = PATH;
  delete process.env.STAND_IN_SCENE;
  await room?.close();
});

async function start(scene: string, input: Record<string, unknown>) {
  process.env.STAND_IN_SCENE = scene;
  return (await room.runner.engine.call(room.runner.engine.operator(), 'agent_start', { client: 'claude-code', cwd: dir, cols: 100, rows: 24, ...input })).agent;
}

describe('a stalled agent and a limited one, on the Terminals screen', () => {
  it('read stalled and limited until their reset, notify once each, and the countdown is cancelled from its terminal', { timeout: 120_000 }, async () => {
    const { page } = room;
    const stalled = await start('stall', { stallMinutes: 0.01 });
    const limited = await start("limit:You've hit your session limit · resets in 2h 5m", { onLimit: 'resume' });
    await page.getByRole('button', { name: 'Terminals' }).click();
    const item = (id: string) => page.locator(`.shell-item[data-shell-id="${id}"]`);
    await expect.poll(() => item(stalled.shellId).getByTestId('shell-list-status').innerText(), { timeout: 20_000 }).toMatch(/^stalled \d+ s$/);
    await expect.poll(() => item(limited.shellId).getByTestId('shell-list-status').innerText(), { timeout: 20_000 }).toMatch(/^limited until \d\d:\d\d$/);
    const until = (await room.runner.engine.call(room.runner.engine.operator(), 'agent_list', {})).agents.find((a) => a.shellId === limited.shellId)?.watch.limitedUntil as string;
    expect(await item(limited.shellId).getByTestId('shell-list-status').innerText()).toBe(`limited until ${clock(new Date(until))}`);

    await item(limited.shellId).click();
    expect(await page.getByTestId('shell-status').innerText()).toBe(`limited until ${clock(new Date(until))}`);
    const strip = page.getByTestId('agent-condition');
    await expect.poll(() => strip.innerText()).toContain("You've hit your session limit · resets in 2h 5m");
    expect(await page.getByTestId('resume-countdown').innerText()).toMatch(new RegExp(`resumes at ${clock(new Date(until))} \\(in 2 h (4|5) min\\)`));
    // one notification each, naming the agent and what the room will do
    await expect.poll(async () => (await notesOf(page)).length).toBe(2);
    const notes = await notesOf(page);
    expect(notes).toContain('Claude Code (claude-code) has stalled: It reads busy, but its terminal, CPU and processes have been still.');
    expect(notes).toContain(`Claude Code (claude-code-2) hit a usage limit: You've hit your session limit · resets in 2h 5m · the room resumes it at ${new Date(until).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`);

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [width, height] of [[1440, 900], [1024, 768], [390, 844]] as const) {
        await page.setViewportSize({ width, height });
        await page.screenshot({ path: path.join(SHOTS, `terminals-limited-${width}-${scheme}.png`) });
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });

    // Cancel: no resume counted down to; it can be set again, or resumed now
    await page.getByTestId('cancel-resume').click();
    await page.getByTestId('resume-at-reset').waitFor();
    expect(await page.getByTestId('resume-countdown').count()).toBe(0);
    expect(await strip.innerText()).toContain('it will not be resumed by itself');
    const { events } = await room.runner.engine.call(room.runner.engine.operator(), 'workspace_history', { limit: 50 });
    expect(events.filter((e) => e.kind === 'agent.limit_resume_cancelled').map((e) => e.actor)).toEqual(['operator']);
    await page.screenshot({ path: path.join(SHOTS, 'terminals-limited-cancelled-1440-light.png') });

    // the stalled one: its line under the header says since when it has been still
    await item(stalled.shellId).click();
    await expect.poll(() => strip.innerText()).toMatch(/^stalled \d+ (s|min) · busy, but its terminal, CPU and processes have been still since \d\d:\d\d/);
    await page.screenshot({ path: path.join(SHOTS, 'terminals-stalled-1440-light.png') });
    expect(await notesOf(page)).toHaveLength(2); // not again

    // the Agents screen's badge says it too
    await page.getByRole('button', { name: 'Agents' }).click();
    await expect.poll(() => page.locator('tr[data-participant="claude-code"] .agent-terminals .badge').innerText()).toMatch(/^stalled \d+ (s|min)$/);
    await page.screenshot({ path: path.join(SHOTS, 'agents-stalled-1440-light.png') });
    expect(pageErrors).toEqual([]);
  });
});
