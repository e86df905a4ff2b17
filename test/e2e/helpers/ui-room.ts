/**
 * The set-up every UI e2e test shares: a real runner in a throw-away home, agents played by real MCP SDK
 * clients with tokens of their own, and a Chromium page signed in through the runner's own door.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Capability } from '../../../src-main/common/capabilities';
import type { Limits } from '../../../src-main/common/limits';
import { startRunner, type RunningRoom } from '../../../src-main/server/runner';
import { makeHome, REPO, type TestHome } from '../../helpers/env';
import { closeUi, launchChromium, openUi } from './open-ui';

/** An MCP client (2026 era, negotiated) connected to the runner's endpoint with `token`. */
export async function connectWithToken(runner: RunningRoom, token: string): Promise<Client> {
  const client = new Client({ name: 'e2e-agent', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(runner.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** Adds participant `name` and connects an MCP client with its own token. */
export async function connectAgent(runner: RunningRoom, name: string, capabilities: Capability[] = ['read', 'write']): Promise<Client> {
  const added = await runner.engine.call(runner.engine.operator(), 'participant_add', { name, capabilities });
  return connectWithToken(runner, added.token);
}

/** Calls a tool as `client` and answers its structured result; a tool error throws with its text. */
export async function callTool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (r.isError) throw new Error(r.content[0]?.text);
  return r.structuredContent;
}

/** A stage's state as the room has it now (for waiting until a graph is where a test needs it). */
export async function stageState(runner: RunningRoom, graphId: string, stageId: string): Promise<string | null> {
  const status = await runner.engine.call(runner.engine.operator(), 'tasks_status', { graphId });
  return 'stages' in status ? (status.stages.find((s) => s.id === stageId)?.state ?? null) : null;
}

export interface UiRoom {
  home: TestHome;
  runner: RunningRoom;
  agents: Client[];
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

export interface UiRoomOptions {
  /** The agents to connect, by name (each with read and write). */
  agents?: string[];
  limits?: Partial<Limits>;
  /** Page errors are pushed here (tests assert it stays empty). */
  pageErrors: string[];
  /** Prepares the browser context before the page opens (permissions, init scripts). */
  prepare?(context: BrowserContext): Promise<void>;
}

export async function startUiRoom(options: UiRoomOptions): Promise<UiRoom> {
  if (!fs.existsSync(path.join(REPO, 'out/renderer/index.html'))) throw new Error('run `npm run build` first: the e2e tests load out/renderer');
  const home = makeHome();
  const runner = await startRunner({ port: 0, paths: home.paths, ...(options.limits ? { limits: options.limits } : {}) });
  const agents: Client[] = [];
  for (const name of options.agents ?? ['agent']) agents.push(await connectAgent(runner, name));
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await options.prepare?.(context);
  const page = await context.newPage();
  page.on('pageerror', (e) => options.pageErrors.push(e.message));
  await openUi(page, runner);
  return {
    home,
    runner,
    agents,
    browser,
    page,
    async close() {
      await browser.close();
      for (const agent of agents) await agent.close();
      await closeUi(runner);
      await runner.close();
      home.cleanup();
    },
  };
}
