/** The desktop app through the Electron harness, with a room in a throw-away home and agents on its endpoint. */
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium, type Browser } from 'playwright-core';
import { findRunningRoom } from '../../src-main/engine/index';
import { makeHome, type TestHome } from '../helpers/env';
import { DesktopApp, type HarnessWindow } from '../harness/electron/desktop';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    // Electron lets its file:// pages start workers from file:// (the graph layout's ELK worker); Chromium needs the flag
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--allow-file-access-from-files'],
  });
}

export interface DesktopRoom {
  home: TestHome;
  room: string;
  userData: string;
  env: NodeJS.ProcessEnv;
}

export function desktopRoom(): DesktopRoom {
  const home = makeHome();
  const room = path.join(home.root, 'work', 'room.md');
  fs.mkdirSync(path.dirname(room), { recursive: true });
  return { home, room, userData: path.join(home.root, 'electron-user-data'), env: { ...home.env, COMMONROOM_ROOM: room, COMMONROOM_PORT: '0' } };
}

export function launchDesktop(browser: Browser, where: DesktopRoom, extra: NodeJS.ProcessEnv = {}): DesktopApp {
  return DesktopApp.launch({ browser, env: { ...where.env, ...extra }, userData: where.userData });
}

/** The room process the app started: its endpoint and the operator token (as `ce` finds them). */
export function endpointOf(where: DesktopRoom, room = where.room): { endpoint: string; token: string } {
  const found = findRunningRoom(room, where.home.paths);
  if (!found) throw new Error('no room process serves the room');
  return found;
}

/** A new participant with its own token, and a real MCP SDK client connected with it. */
export async function connectAgent(where: DesktopRoom, name: string): Promise<Client> {
  const { endpoint, token } = endpointOf(where);
  const res = await fetch(new URL('/api/participant_add', endpoint), {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, capabilities: ['read', 'write'] }),
  });
  const body = (await res.json()) as { result?: { token: string }; error?: { message: string } };
  if (!body.result) throw new Error(`participant_add: ${body.error?.message}`);
  const client = new Client({ name: `desktop-${name}`, version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', endpoint), { requestInit: { headers: { Authorization: `Bearer ${body.result.token}` } } }));
  return client;
}

export async function tool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (r.isError) throw new Error(r.content[0]?.text);
  return r.structuredContent;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until the window's sidebar says the link to the room is up. */
export function connected(page: import('playwright-core').Page): Promise<void> {
  return page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor({ timeout: 20_000 });
}

/** The app launched on a room of its own, its first window connected; quit and cleaned up afterwards. */
export async function withDesktop(
  browser: Browser,
  body: (app: { where: DesktopRoom; desktop: DesktopApp; win: HarnessWindow }) => Promise<void>,
  extra: NodeJS.ProcessEnv = {},
): Promise<void> {
  const where = desktopRoom();
  const desktop = launchDesktop(browser, where, extra);
  try {
    const win = await desktop.firstWindow();
    await connected(win.page);
    await body({ where, desktop, win });
  } finally {
    await desktop.quit();
    where.home.cleanup();
  }
}
