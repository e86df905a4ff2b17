/**
 * Agents' presence says when (issue 35, item 10), in real Chromium through the runner's own door, with agents
 * played by real MCP SDK clients: a 2025 session that is used reads connected; once closed it reads
 * "left just now" (never "connected" after it left) with its last call kept; a listen-less 2026
 * client reads when it was last seen. A plain shell reads busy while a quiet command runs and idle at its
 * prompt. Screenshots at 1440 and 1024 wide, light and dark. Needs `npm run build`.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningRoom } from '../../src-main/server/runner';
import { BASH } from '../engine/shells/helpers';
import { outputFile } from './helpers/open-ui';
import { callTool, startUiRoom, type UiRoom } from './helpers/ui-room';

let room: UiRoom;
let runner: RunningRoom;
let page: Page;
const pageErrors: string[] = [];
const clients: Client[] = [];
const LONG = 'claude-code-on-the-build-machine-in-the-basement-with-long-name';

async function agent(name: string, mode: 'legacy' | 'auto'): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const added = await runner.engine.call(runner.engine.operator(), 'participant_add', { name, capabilities: ['read', 'write'] });
  const client = new Client({ name, version: '1' }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(runner.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${added.token}` } } });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

async function shoot(name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [[1440, 900], [1024, 640]] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(250); // layout settles (a picture, not an assertion)
      await page.screenshot({ path: outputFile(`hist-${name}-${scheme}-${width}.png`) });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

const row = (name: string) => page.locator(`tr[data-participant="${name}"]`);

beforeAll(async () => {
  room = await startUiRoom({ pageErrors, agents: [] });
  ({ runner, page } = room);
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await room?.close();
});

describe('presence with its time', () => {
  it('connected while its session is used; "left just now" once it left, its last call kept', async () => {
    const { client, transport } = await agent(LONG, 'legacy');
    await callTool(client, 'shell_list', {});
    const stateless = await agent('stateless-reviewer', 'auto');
    await callTool(stateless.client, 'handoff_list', {});
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Agents/ }).click();
    await expect.poll(() => row(LONG).getByTestId('presence-text').innerText()).toBe('connected');
    expect(await row(LONG).getByTestId('presence').getAttribute('data-connected')).toBe('yes');
    // a 2026 client holds no connection: it says when it was last seen instead of "connected"
    await expect.poll(() => row('stateless-reviewer').getByTestId('presence-text').innerText()).toBe('seen just now');
    await transport.terminateSession();
    await expect.poll(() => row(LONG).getByTestId('presence-text').innerText()).toBe('left just now');
    expect(await row(LONG).getByTestId('presence').getAttribute('data-connected')).toBe('no');
    expect(await row(LONG).getByTestId('last-call').innerText()).toContain('shell_list');
    await shoot('agents-presence');
    expect(pageErrors).toEqual([]);
  });

  it('a plain shell reads busy while a quiet command runs, idle at its prompt', async () => {
    const { client } = await agent('shell-user', 'legacy');
    const { shell } = await callTool<{ shell: { id: string } }>(client, 'shell_open', { ...BASH, name: 'build shell' });
    await callTool(client, 'shell_io', { shellId: shell.id, wait: { until: 'match', pattern: 'PROMPT> ', timeoutMs: 20_000 }, cursor: 'start' });
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /Terminals/ }).click();
    const status = page.locator(`.shell-item[data-shell-id="${shell.id}"]`).getByTestId('shell-list-status');
    await expect.poll(() => status.innerText(), { timeout: 20_000 }).toBe('idle');
    await callTool(client, 'shell_io', { shellId: shell.id, text: 'sleep 300\n' });
    await expect.poll(() => status.innerText(), { timeout: 20_000 }).toBe('busy');
    // quiet for longer than the room's quiet time (1.5 s), it is still busy: the shell's marks say a command runs
    await callTool(client, 'shell_io', { shellId: shell.id, wait: { until: 'status', status: ['idle'], timeoutMs: 3_000 } });
    expect(await status.innerText()).toBe('busy');
    expect(await status.getAttribute('title')).toBe('a command is running');
    await shoot('terminals-busy');
    await callTool(client, 'shell_io', { shellId: shell.id, input: [{ key: 'C-c' }] });
    await expect.poll(() => status.innerText(), { timeout: 20_000 }).toBe('idle');
    expect(pageErrors).toEqual([]);
  });
});
