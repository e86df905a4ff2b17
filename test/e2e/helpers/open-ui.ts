/**
 * Everything the e2e tests need to reach the UI, in one place: today the test-only door (ui-test-server.ts);
 * at merge, the real `commonroom serve` door through its token URL.
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

/** The UI door of `runner` (started on first use; closed with closeUi). */
export async function uiDoor(runner: RunningRoom): Promise<UiTestServer> {
  let door = doors.get(runner);
  if (!door) {
    door = await startUiTestServer(runner.engine, runner.mcpUrl.toString());
    doors.set(runner, door);
  }
  return door;
}

/** Opens the room's UI in `page` and waits until it is connected. */
export async function openUi(page: Page, runner: RunningRoom): Promise<void> {
  const door = await uiDoor(runner);
  await page.goto(door.url);
  await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor();
}

export async function closeUi(runner: RunningRoom): Promise<void> {
  await doors.get(runner)?.close();
  doors.delete(runner);
}

export function outputFile(name: string): string {
  fs.mkdirSync(TEST_OUTPUT, { recursive: true });
  return path.join(TEST_OUTPUT, name);
}
