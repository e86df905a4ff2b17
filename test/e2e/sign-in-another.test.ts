/**
 * Another tab or a phone signs in from the signed-in UI, without a terminal: "Open in another tab" opens a new
 * tab signed in by a fresh one-time link; "Sign in a phone" shows a one-time link and its QR code, opened here
 * in a second browser (a phone-sized context). Each is a new sign-in, listed on the Agents screen with what it
 * was made for, and signing it out there ends it at once. The link works once, and only for the person: an agent
 * cannot mint one. In Chromium against a real room. Needs `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputFile } from './helpers/open-ui';
import { startUiRoom, type UiRoom } from './helpers/ui-room';

const SHOTS = '/work/shots/wt-screens';
const shot = (name: string) => (fs.existsSync(SHOTS) ? path.join(SHOTS, name) : outputFile(name));

let room: UiRoom;
const pageErrors: string[] = [];
beforeAll(async () => {
  room = await startUiRoom({ pageErrors });
}, 60_000);
afterAll(() => room?.close());

const sessions = async () => (await room.runner.engine.call(room.runner.engine.operator(), 'ui_session_list', {})).sessions;
const connected = (page: Page) => page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor({ timeout: 15_000 });

async function agentsScreen(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Agents' }).click();
  await page.getByTestId('ui-sessions').waitFor();
}

describe('signing in another tab or a phone from the UI', () => {
  it('Open in another tab: a new tab signs in with its own one-time link, is listed, and signing it out ends it', { timeout: 60_000 }, async () => {
    const { page } = room;
    await page.setViewportSize({ width: 1440, height: 900 });
    await agentsScreen(page);
    const before = await sessions();
    const opened = page.context().waitForEvent('page');
    await page.getByTestId('open-another-tab').click();
    const tab = await opened;
    tab.on('pageerror', (e) => pageErrors.push(e.message));
    await connected(tab);
    expect(tab.url()).not.toContain('token=');
    const after = await sessions();
    expect(after).toHaveLength(before.length + 1);
    const mine = after.find((s) => !before.some((b) => b.id === s.id));
    expect(mine?.purpose).toBe('tab');
    // listed in the first tab, with what it was made for
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.locator(`[data-ui-session="${mine?.id}"]`);
    await expect.poll(() => row.innerText()).toContain('another tab');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: shot(`sign-in-tab-listed-1440-${scheme}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    // signing it out asks in the app, then ends the other tab's connection at once
    await row.getByRole('button', { name: 'Sign out' }).click();
    await page.getByTestId('confirm-dialog').waitFor();
    await page.getByTestId('confirm-yes').click();
    await expect.poll(async () => (await sessions()).some((s) => s.id === mine?.id)).toBe(false);
    await expect.poll(() => tab.getByTestId('link-state').innerText(), { timeout: 15_000 }).not.toBe('connected');
    await tab.close();
    expect(pageErrors).toEqual([]);
  });

  it('Sign in a phone: a QR code and a one-time link that a second browser opens once; listed, revocable', { timeout: 60_000 }, async () => {
    const { page } = room;
    await agentsScreen(page);
    const before = await sessions();
    for (const [width, height] of [[1440, 900], [1024, 768], [390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await page.getByTestId('sign-in-phone').click();
      const dialog = page.getByTestId('phone-link');
      await dialog.waitFor();
      expect(await dialog.getByTestId('qr-code').count()).toBe(1);
      // focus moved into the dialog
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest('dialog')))).toBe(true);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: shot(`sign-in-phone-dialog-${width}-${scheme}.png`) });
      }
      await page.emulateMedia({ colorScheme: 'light' });
      if (width !== 390) {
        // Escape closes it and focus returns to the button that opened it
        await page.keyboard.press('Escape');
        await expect.poll(() => dialog.count()).toBe(0);
        expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('sign-in-phone');
      }
    }
    const url = await page.getByTestId('phone-link-url').innerText();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/#token=/);
    await page.getByRole('button', { name: 'Done' }).click();

    const phone = await (await room.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })).newPage();
    phone.on('pageerror', (e) => pageErrors.push(e.message));
    await phone.goto(url);
    await connected(phone);
    const after = await sessions();
    const made = after.filter((s) => !before.some((b) => b.id === s.id));
    // four links were made (one per size); one was opened: one new sign-in, made for a phone
    expect(made.map((s) => s.purpose)).toEqual(['phone']);
    await phone.screenshot({ path: shot('sign-in-phone-signed-in-390.png') });
    // the link works once: a second browser is refused
    const again = await (await room.browser.newContext()).newPage();
    await again.goto(url);
    await expect.poll(() => again.locator('body').innerText(), { timeout: 15_000 }).toMatch(/already used/);
    expect((await sessions()).length).toBe(after.length);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.locator(`[data-ui-session="${made[0]?.id}"]`);
    await expect.poll(() => row.innerText()).toContain('a phone');
    await page.screenshot({ path: shot('sign-in-phone-listed-390.png'), fullPage: true });
    await row.getByRole('button', { name: 'Sign out' }).click();
    await page.getByTestId('confirm-yes').click();
    await expect.poll(() => phone.getByTestId('link-state').innerText(), { timeout: 15_000 }).not.toBe('connected');
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(pageErrors).toEqual([]);
  });
});
