/**
 * A shell's size belongs to whoever drives it, seen from two real Chromium tabs at different sizes (a desktop's
 * 1440x900 and a second viewer at 1024x768 and a 390x844 phone), each signed in with its own one-time link, for
 * every kind of shell: opened by the person, an agent started from the UI (agent_start, as + New agent calls
 * it), an agent started with the real `ce agent start`, one an agent opened over MCP (a real SDK client), and a
 * tty stage of the person's graph. The second viewer never changes the PTY's size (read by shell_list, and for
 * a shell by `stty size`); its terminal draws the PTY's columns; "Fit to panel" hands driving over. Needs
 * `npm run build`. Screenshots go to /work/shots/wt-screens when that folder exists (else test-output/).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_CE } from '../helpers/env';
import { openUi, outputFile } from './helpers/open-ui';
import { terminalSize } from './helpers/page-terminal';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

const SHOTS = '/work/shots/wt-screens';
const shot = (name: string) => (fs.existsSync(SHOTS) ? path.join(SHOTS, name) : outputFile(name));

let room: UiRoom;
let agent: Client;
let desktop: Page;
let viewer: Page;
let dir: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  room = await startUiRoom({ pageErrors });
  agent = room.agents[0] as Client;
  desktop = room.page;
  await desktop.setViewportSize({ width: 1440, height: 900 });
  const context = await room.browser.newContext({ viewport: { width: 390, height: 844 } });
  viewer = await context.newPage();
  viewer.on('pageerror', (e) => pageErrors.push(e.message));
  await openUi(viewer, room.runner);
  dir = fs.mkdtempSync(path.join(path.dirname(room.runner.engine.room.location.markdownPath), 'agent-'));
}, 60_000);
afterAll(() => room?.close());

const op = () => room.runner.engine.operator();

async function ptySize(shellId: string): Promise<string> {
  const shell = (await room.runner.engine.call(op(), 'shell_list', {})).shells.find((s) => s.id === shellId);
  return shell ? `${shell.cols}x${shell.rows}` : 'gone';
}

async function show(page: Page, shellId: string): Promise<void> {
  await page.getByRole('button', { name: 'Terminals' }).click();
  await page.locator(`.shell-item[data-shell-id="${shellId}"]`).click();
  await expect.poll(() => terminalSize(page, shellId)).not.toBeNull();
}

async function stageShell(graphId: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const found = (await room.runner.engine.call(op(), 'shell_list', {})).shells.find((s) => s.name.startsWith(`stage ${graphId}:`));
    if (found) return found.id;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the tty stage never appeared as a shell');
}

const kinds: Record<string, { mine: boolean; open: () => Promise<string> }> = {
  'person-opened': { mine: true, open: async () => (await room.runner.engine.call(op(), 'shell_open', { name: 'my-shell', shell: '/bin/sh' })).shell.id },
  'ui-started-agent': {
    mine: true,
    open: async () => (await room.runner.engine.call(op(), 'agent_start', { client: 'command', command: ['/bin/sh', '-c', 'echo agent ready; exec sleep 600'], cwd: dir, cols: 80, rows: 24 })).agent.shellId,
  },
  'ce-agent-start': {
    mine: true,
    open: async () => {
      const r = await promisify(execFile)(process.execPath, [BIN_CE, 'agent', 'start', 'command', '--json', '--', '/bin/sleep', '600'], { env: room.home.env, cwd: dir, timeout: 20_000 });
      return (JSON.parse(r.stdout) as { agent: { shellId: string } }).agent.shellId;
    },
  },
  'agent-opened': { mine: false, open: async () => (await callTool<{ shell: { id: string } }>(agent, 'shell_open', { name: 'agent-shell', shell: '/bin/sh', cols: 100, rows: 30 })).shell.id },
  'stage-shell': { mine: true, open: async () => stageShell((await room.runner.engine.call(op(), 'tasks_run', { name: 'sized', stages: [{ id: 'wait', command: 'echo stage ready; sleep 600', tty: true }] })).graphId) },
};

/** The PTY's size once it has not changed for 600 ms (a driver's panel settling after it took over). */
async function settledSize(shellId: string): Promise<string> {
  let last = await ptySize(shellId);
  for (let stable = 0; stable < 3; ) {
    await new Promise((r) => setTimeout(r, 200));
    const now = await ptySize(shellId);
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
  return last;
}

describe("a second viewer leaves the PTY's size alone", () => {
  for (const [kind, { mine, open }] of Object.entries(kinds)) {
    it(`${kind}: the desktop drives (or the agent does), a phone and a 1024 tab watching change nothing; Fit to panel hands over`, { timeout: 90_000 }, async () => {
      const shellId = await open();
      const before = await ptySize(shellId);
      await show(desktop, shellId);
      // the desktop's own shell follows its panel; an agent's keeps the agent's size
      if (mine) await expect.poll(() => ptySize(shellId), { timeout: 10_000 }).not.toBe(before);
      else await desktop.waitForTimeout(300);
      const driven = await ptySize(shellId);
      if (!mine) expect(driven).toBe(before);
      const cols = Number(driven.split('x')[0]);

      for (const [width, height] of [[390, 844], [1024, 768]] as const) {
        await viewer.setViewportSize({ width, height });
        await show(viewer, shellId);
        // the viewer draws the PTY's columns (the panel scrolls) and offers to take it over
        await expect.poll(async () => (await terminalSize(viewer, shellId))?.cols, { timeout: 10_000 }).toBe(cols);
        await expect.poll(() => viewer.getByTestId('take-over-size').count(), { timeout: 10_000 }).toBe(1);
        await viewer.waitForTimeout(300); // a resize it would have sent has gone by now
        expect(await ptySize(shellId)).toBe(driven);
        for (const scheme of ['light', 'dark'] as const) {
          await viewer.emulateMedia({ colorScheme: scheme });
          await viewer.screenshot({ path: shot(`shell-driver-${kind}-viewer-${width}-${scheme}.png`) });
        }
        await viewer.emulateMedia({ colorScheme: 'light' });
      }
      // the viewer leaves (another screen): the desktop still shows and drives the same size
      await viewer.getByRole('button', { name: 'Inbox' }).click();
      expect(await ptySize(shellId)).toBe(driven);
      expect((await terminalSize(desktop, shellId))?.cols).toBe(cols);
      for (const scheme of ['light', 'dark'] as const) {
        await desktop.emulateMedia({ colorScheme: scheme });
        await desktop.screenshot({ path: shot(`shell-driver-${kind}-desktop-1440-${scheme}.png`) });
      }
      await desktop.emulateMedia({ colorScheme: 'light' });

      // the phone takes it over: the PTY follows the phone, the desktop is told and draws the phone's size
      await viewer.setViewportSize({ width: 390, height: 844 });
      await show(viewer, shellId);
      await viewer.getByTestId('take-over-size').click();
      await expect.poll(() => ptySize(shellId), { timeout: 10_000 }).not.toBe(driven);
      // the phone drives now: its panel may settle by a row once its header shows it drives (its own resize, not
      // the desktop's); the size it settles at is what the desktop must then leave alone
      const taken = await settledSize(shellId);
      expect(Number(taken.split('x')[0])).toBeLessThan(cols);
      await expect.poll(async () => (await terminalSize(desktop, shellId))?.cols, { timeout: 10_000 }).toBe(Number(taken.split('x')[0]));
      await expect.poll(() => desktop.getByTestId('take-over-size').count(), { timeout: 10_000 }).toBe(1);
      await desktop.waitForTimeout(300);
      expect(await ptySize(shellId)).toBe(taken);
      await desktop.screenshot({ path: shot(`shell-driver-${kind}-desktop-after-phone-took-over.png`) });
      // and the desktop takes it back
      await desktop.getByTestId('take-over-size').click();
      await expect.poll(async () => Number((await ptySize(shellId)).split('x')[0]), { timeout: 10_000 }).toBeGreaterThan(Number(taken.split('x')[0]));
      await viewer.getByRole('button', { name: 'Inbox' }).click();
      expect(pageErrors).toEqual([]);
    });
  }
});
