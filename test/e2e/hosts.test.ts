/**
 * The Agents screen's Hosts part (issue 42, Deliver 1), in real Chromium against a room whose person has a real
 * SSH configuration: a private sshd on 127.0.0.1 with a ready stand-in machine and one lacking Commonroom.
 * Adding a host from the list of SSH aliases, checking it (the real connection and probe), the missing-tool
 * advice, an unreachable host's reason, and a change made with `ce` showing without a reload. Needs root for
 * the sshd (skipped with the reason otherwise) and `npm run build`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { closeHosts, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';
import { outputFile } from './helpers/open-ui';
import { startUiRoom, type UiRoom } from './helpers/ui-room';

const unavailable = sshHostsUnavailable();
let room: UiRoom;
let runner: RunningRoom;
let page: Page;
let hosts: SshHosts;
let sshDir: string;
const pageErrors: string[] = [];
const savedConfig = process.env.COMMONROOM_SSH_CONFIG;

describe.skipIf(unavailable !== null)(`Hosts on the Agents screen${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-ui-'));
    hosts = await startSshHosts(
      sshDir,
      [
        { alias: 'build-server-in-the-basement-with-a-long-name', user: 'crhost-ui', profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } },
        { alias: 'gpubox', user: 'crhost-ui-gpu', profile: ['# nothing added'] },
      ],
      ['Host downbox', '  HostName 127.0.0.1', '  Port 9', '  ConnectTimeout 3'],
    );
    // the in-process runner reads the person's SSH configuration from here
    process.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    room = await startUiRoom({ pageErrors, agents: ['claude-code'] });
    ({ runner, page } = room);
  }, 60_000);
  afterAll(async () => {
    await room?.close();
    if (savedConfig === undefined) delete process.env.COMMONROOM_SSH_CONFIG;
    else process.env.COMMONROOM_SSH_CONFIG = savedConfig;
    if (hosts) await closeHosts(hosts, { configDir: room.home.paths.configDir, aliases: ['build-server-in-the-basement-with-a-long-name', 'gpubox'], users: ['crhost-ui', 'crhost-ui-gpu'] });
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  const hostItem = (alias: string) => page.locator(`[data-host="${alias}"]`);

  it('adds SSH hosts from the list, checks each for real, and says what a host lacks or why it cannot be reached', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Agents/ }).click();
    const card = page.getByRole('region', { name: 'Hosts' });
    await expect.poll(() => card.innerText()).toContain('No hosts yet.');
    await expect.poll(() => card.getByLabel('SSH host').locator('option').allInnerTexts()).toEqual(['build-server-in-the-basement-with-a-long-name', 'gpubox', 'downbox']);
    await card.screenshot({ path: outputFile('hosts-empty.png') });

    for (const alias of ['build-server-in-the-basement-with-a-long-name', 'gpubox']) {
      await card.getByLabel('SSH host').selectOption(alias);
      await card.getByRole('button', { name: 'Add host' }).click();
      await expect.poll(() => hostItem(alias).count()).toBe(1);
    }
    // added elsewhere (ce host add): shown without a reload
    await runner.engine.call(runner.engine.operator(), 'host_add', { alias: 'downbox', agents: false });
    await expect.poll(() => hostItem('downbox').innerText()).toMatch(/not checked[\s\S]*you only/);
    expect(await card.getByLabel('SSH host').count()).toBe(0);

    await hostItem('build-server-in-the-basement-with-a-long-name').getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => hostItem('build-server-in-the-basement-with-a-long-name').innerText(), { timeout: 30_000 }).toMatch(/ready[\s\S]*commonroom\s+0\.1\.0/);
    await hostItem('gpubox').getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => hostItem('gpubox').getByTestId('host-missing').innerText(), { timeout: 30_000 }).toContain('npm install -g commonroom@0.1.0');
    expect(await hostItem('gpubox').innerText()).toContain('not ready');
    await hostItem('downbox').getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => hostItem('downbox').getByTestId('host-error').innerText(), { timeout: 30_000 }).toMatch(/downbox could not be reached/);
    expect(await hostItem('downbox').innerText()).toContain('not reachable');

    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: outputFile('hosts-checked-1440.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await card.screenshot({ path: outputFile('hosts-checked-1440-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 390, height: 844 });
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: outputFile('hosts-checked-390.png') });
    // the card itself fits a phone (the rest of the screen's width is the screens' own issue)
    const box = await card.boundingBox();
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    expect(await card.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);

    // removed after asking
    await hostItem('gpubox').getByRole('button', { name: 'Remove gpubox' }).click();
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Remove host' }).click();
    await expect.poll(() => hostItem('gpubox').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
