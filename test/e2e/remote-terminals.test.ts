/**
 * Shells on a host in the Terminals screen (issue 42), in real Chromium: an agent opens a shell on a host
 * through the MCP door and types into it; the person sees it in the list marked with its host, and live in its
 * terminal (its output streamed into the room), and types into it as into a local shell — the agent reads what
 * they typed; the host made unreachable (its sshd stopped, the connection dropped) marks the shell unreachable,
 * not ended, and it is live again when the host is back. Needs root for the sshd (skipped with the reason
 * otherwise) and `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { closeHosts, COMMONROOM_BIN, sshHostsUnavailable, startSshHosts, type SshHosts } from '../helpers/ssh-hosts';
import { terminalText } from './helpers/page-terminal';
import { startUiRoom, type UiRoom } from './helpers/ui-room';

const unavailable = sshHostsUnavailable();
const USER = 'crhost-term';
const ALIAS = 'basement-build-server';
const SHOTS = '/work/shots/wt-mirror';
let room: UiRoom;
let runner: RunningRoom;
let page: Page;
let hosts: SshHosts;
let sshDir: string;
const pageErrors: string[] = [];
const savedConfig = process.env.COMMONROOM_SSH_CONFIG;

async function tool<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await room.agents[0]?.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (r.isError) throw new Error(r.content[0]?.text);
  return r.structuredContent;
}

const sshExit = () => spawnSync('ssh', ['-F', hosts.configFile, '-o', `ControlPath=${path.join(room.home.paths.configDir, 'ssh', '%C')}`, '-O', 'exit', ALIAS], { stdio: 'ignore' });

async function shots(name: string, sizes: [number, number][], dark = false): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const [w, h] of sizes) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${w}.png`) });
    if (dark) {
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: path.join(SHOTS, `${name}-${w}-dark.png`) });
      await page.emulateMedia({ colorScheme: 'light' });
    }
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe.skipIf(unavailable !== null)(`shells on a host in the Terminals screen${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  beforeAll(async () => {
    sshDir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ssh-term-'));
    hosts = await startSshHosts(sshDir, [{ alias: ALIAS, user: USER, profile: ['export PATH="$HOME/tools/bin:$PATH"'], tools: { commonroom: COMMONROOM_BIN } }]);
    process.env.COMMONROOM_SSH_CONFIG = hosts.configFile;
    room = await startUiRoom({ pageErrors, agents: ['builder'] });
    ({ runner, page } = room);
    await runner.engine.call(runner.engine.operator(), 'host_add', { alias: ALIAS });
  }, 60_000);
  afterAll(async () => {
    await room?.close();
    if (savedConfig === undefined) delete process.env.COMMONROOM_SSH_CONFIG;
    else process.env.COMMONROOM_SSH_CONFIG = savedConfig;
    if (hosts) await closeHosts(hosts, { configDir: room.home.paths.configDir, aliases: [ALIAS], users: [USER] });
    fs.rmSync(sshDir, { recursive: true, force: true });
  });

  it('lists a shell on a host marked with its host, shows it live and takes typing, and marks it unreachable while its host is away', async () => {
    const { shell } = await tool<{ shell: { id: string } }>('shell_open', { host: ALIAS, name: 'nightly build of the whole monorepo on the basement server' });
    await tool('shell_io', { shellId: shell.id, text: 'echo "built on $(hostname -s) as $(whoami): all 1,204 tests passed"\n', wait: { until: 'match', pattern: 'tests passed$', timeoutMs: 10_000 } });

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Terminals/ }).click();
    const item = page.locator(`.shell-item[data-shell-id="${shell.id}"]`);
    await expect.poll(() => item.count(), { timeout: 15_000 }).toBe(1);
    expect(await item.getByTestId('shell-host').innerText()).toBe(ALIAS);
    await item.click();
    // live, as a local shell is: its terminal, fed from the room's copy of the host's shell
    await expect.poll(() => page.getByTestId('terminal').getAttribute('data-shell-id'), { timeout: 15_000 }).toBe(shell.id);
    await expect.poll(() => terminalText(page, shell.id), { timeout: 15_000 }).toContain(`as ${USER}: all 1,204 tests passed`);
    expect(await page.getByTestId('shell-host-fact').innerText()).toContain(ALIAS);

    // the person types into it; it runs on the host, and the agent reads it there
    await page.getByTestId('terminal').click();
    await page.keyboard.type('echo "typed here, run by $(whoami): $((6*7))"');
    await page.keyboard.press('Enter');
    await expect.poll(() => terminalText(page, shell.id), { timeout: 15_000 }).toContain(`typed here, run by ${USER}: 42`);
    const read = await tool<{ output: string }>('shell_io', { shellId: shell.id, cursor: 'start' });
    expect(read.output).toContain(`typed here, run by ${USER}: 42`);
    await shots('remote-shell-live', [[1440, 900], [1024, 768], [390, 844]], true);

    // the host goes away: the shell is unknown, not ended (the list is told when the link drops); what reached
    // the room stays on screen
    await hosts.stop();
    sshExit();
    await expect.poll(() => page.getByTestId('host-unreachable').count(), { timeout: 15_000 }).toBe(1);
    expect(await page.getByTestId('host-unreachable').innerText()).toContain(`${ALIAS} cannot be reached now`);
    expect(await terminalText(page, shell.id)).toContain(`typed here, run by ${USER}: 42`);
    await expect(tool('shell_io', { shellId: shell.id })).rejects.toThrow(new RegExp(`host ${ALIAS} is unreachable`));
    await expect.poll(() => item.getByTestId('shell-host').innerText(), { timeout: 15_000 }).toBe(`${ALIAS} · unreachable`);
    expect(await page.getByTestId('shell-status').innerText()).toBe('unknown');
    await shots('remote-shell-unreachable', [[1440, 900], [1024, 768], [390, 844]], true);
    // the Agents screen's Hosts part says so too (its last check stays what it was)
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Agents/ }).click();
    const hostItem = page.getByRole('region', { name: 'Hosts' }).locator(`[data-host="${ALIAS}"]`);
    await expect.poll(() => hostItem.getByTestId('host-link').innerText(), { timeout: 15_000 }).toBe('unreachable now');
    await hostItem.scrollIntoViewIfNeeded();
    await page.getByRole('region', { name: 'Hosts' }).screenshot({ path: path.join(SHOTS, 'hosts-card-unreachable-1440.png') });
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Terminals/ }).click();

    // back: the room follows it again by itself, and the same view goes on with what it did meanwhile
    await hosts.restart();
    await expect.poll(() => item.getByTestId('shell-host').innerText(), { timeout: 30_000 }).toBe(ALIAS);
    await expect.poll(() => page.getByTestId('host-unreachable').count()).toBe(0);
    await tool('shell_io', { shellId: shell.id, text: 'echo "back on $(whoami)"\n', wait: { until: 'match', pattern: `^back on ${USER}`, timeoutMs: 15_000 } });
    await expect.poll(() => terminalText(page, shell.id), { timeout: 15_000 }).toContain(`back on ${USER}`);
    expect(await terminalText(page, shell.id)).toContain('tests passed');
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it("a graph's stage on a host shows its host in the stage panel, its log read here", async () => {
    const run = await tool<{ graphId: string }>('tasks_run', {
      name: 'build on the basement server',
      stages: [
        { id: 'compile', host: ALIAS, command: 'echo "compiled on $(whoami)"' },
        { id: 'report', dependsOn: ['compile'], command: 'echo reported here' },
      ],
    });
    for (;;) {
      const s = await tool<{ graph: { state: string } }>('tasks_status', { graphId: run.graphId, waitMs: 10_000, until: 'ended' });
      if (s.graph.state !== 'running' && s.graph.state !== 'pending') break;
    }
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Graphs/ }).click();
    await page.locator(`.graph-row[data-graph-id="${run.graphId}"]`).click();
    await page.locator('.react-flow__node[data-id="compile"] .stage-node').click();
    await expect.poll(() => page.getByTestId('stage-host').innerText()).toBe(ALIAS);
    await expect.poll(() => page.getByTestId('stage-log').innerText()).toContain(`compiled on ${USER}`);
    await page.locator('.react-flow__node[data-id="report"] .stage-node').click();
    await expect.poll(() => page.getByTestId('stage-log').innerText()).toContain('reported here');
    expect(await page.getByTestId('stage-host').count()).toBe(0);
    await page.locator('.react-flow__node[data-id="compile"] .stage-node').click();
    await shots('remote-stage', [[1440, 900], [390, 844]], true);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
