/**
 * Everything the e2e tests need to reach the UI, in one place: the real door of the runner (its token URL,
 * traded for the cookie), and a small test-only door (ui-test-server.ts) used only where a test must drop
 * and refuse connections at will (the client's reconnect).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { RunningRoom } from '../../../src-main/server/runner';
import { REPO } from '../../helpers/env';
import { startUiTestServer, type UiTestServer } from './ui-test-server';

export const TEST_OUTPUT = path.join(REPO, 'test-output');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

const doors = new WeakMap<RunningRoom, UiTestServer>();

/** A test-only door over `runner`'s engine that can drop connections (started on first use; closed with closeUi). */
export async function uiDoor(runner: RunningRoom): Promise<UiTestServer> {
  let door = doors.get(runner);
  if (!door) {
    door = await startUiTestServer(runner.engine, runner.mcpUrl.toString());
    doors.set(runner, door);
  }
  return door;
}

/**
 * Opens the room's UI in `page` through the runner's own door and waits until it is connected: a fresh one-time
 * sign-in link each time (a link signs in one tab, once), as "ce ui-link" mints them.
 */
export async function openUi(page: Page, runner: RunningRoom): Promise<void> {
  if (!runner.uiUrl) throw new Error('the runner serves no browser UI');
  await page.goto(runner.engine.uiSessions.mintLink().toString());
  await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor();
  // the token was traded for a session and left the address bar
  if (page.url().includes('token=')) throw new Error(`the token stayed in the address bar: ${page.url()}`);
}

export async function closeUi(runner: RunningRoom): Promise<void> {
  await doors.get(runner)?.close();
  doors.delete(runner);
}

export function outputFile(name: string): string {
  fs.mkdirSync(TEST_OUTPUT, { recursive: true });
  return path.join(TEST_OUTPUT, name);
}

/**
 * Waits until the graph canvas is framed for its current size (or the person moved the view, after which it is
 * never refitted): a click after a resize then lands where the node is drawn, not where it was a frame ago.
 */
export async function graphViewSettled(page: Page, timeout = 30_000): Promise<void> {
  await page.waitForFunction(
    () => {
      const dag = document.querySelector<HTMLElement>('[data-testid="graph-dag"]');
      const flow = dag?.querySelector<HTMLElement>('.react-flow');
      if (!dag || !flow) return false;
      return dag.dataset.view === 'moved' || dag.dataset.view === `${flow.offsetWidth}x${flow.offsetHeight}`;
    },
    undefined,
    { timeout },
  );
}
