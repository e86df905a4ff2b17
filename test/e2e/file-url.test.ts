/**
 * The built renderer as the desktop app loads it: from file:// (out/renderer/index.html), talking to the room
 * through a `window.commonroom` bridge (what the preload exposes) that carries the same messages to a real
 * UiSession over a real engine (what the Electron IPC door runs). Covered without Electron: the ELK worker's
 * URL resolves next to the bundle under file:// and lays a graph out off the main thread, and a result that
 * arrives raises a desktop notification through the Notification API (Electron maps it to a native one).
 * Chromium needs --allow-file-access-from-files for a worker from file://; Electron allows it for file:// pages.
 * Needs `npm run build`.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UiSession } from '../../src-main/bridge/ui-session';
import type { ServerMessage } from '../../src-main/common/ui-protocol';
import type { Engine } from '../../src-main/engine/engine';
import { REPO } from '../helpers/env';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let runner: TestRunner;
let engine: Engine;
let browser: Browser;
let page: Page;
let session: UiSession | null = null;
const workers: string[] = [];
const pageErrors: string[] = [];

const as = (name: string) => engine.participantAs(engine.operator(), name);

beforeAll(async () => {
  runner = await startTestRunner();
  engine = runner.running.engine;
  for (const name of ['asker', 'worker']) await engine.call(engine.operator(), 'participant_add', { name, capabilities: ['read', 'write'] });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--allow-file-access-from-files'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['notifications']);
  // the room side of the bridge: messages to a real UiSession, in order; its answers back into the page
  let outbox = Promise.resolve();
  const transmit = (m: ServerMessage) => {
    outbox = outbox.then(() => page.evaluate((x) => (window as unknown as { __fromRoom(m: unknown): void }).__fromRoom(x), m as unknown)).catch(() => undefined);
  };
  await context.exposeBinding('__toRoom', (_source, json: string) => {
    if (!session) {
      session = new UiSession(engine, transmit, { mcpUrl: runner.running.mcpUrl.toString() });
      session.open();
    }
    session.handle(JSON.parse(json));
  });
  await context.addInitScript(() => {
    const w = window as unknown as Record<string, unknown>;
    const listeners = new Set<(m: unknown) => void>();
    w.__fromRoom = (m: unknown) => listeners.forEach((l) => l(m));
    w.commonroom = {
      send: (m: unknown) => void (w.__toRoom as (json: string) => Promise<void>)(JSON.stringify(m)),
      onMessage: (l: (m: unknown) => void) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    };
    const notes: string[] = [];
    w.__notes = notes;
    const Real = window.Notification;
    class Recorded extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        notes.push(`${title}: ${options?.body ?? ''}`);
      }
    }
    Object.defineProperty(window, 'Notification', { value: Recorded, configurable: true, writable: true });
  });
  page = await context.newPage();
  page.on('worker', (w) => workers.push(w.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(pathToFileURL(path.join(REPO, 'out/renderer/index.html')).toString());
  await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor();
}, 60_000);

afterAll(async () => {
  session?.close();
  await browser?.close();
  await runner?.close();
});

describe('the renderer under file:// with the desktop bridge', () => {
  it('lays a graph out in the ELK worker loaded from file:// next to the bundle', async () => {
    const { graphId } = await engine.call(as('worker'), 'tasks_run', {
      name: 'diamond under file://',
      stages: [
        { id: 'a', command: 'true' },
        { id: 'b', command: 'true', dependsOn: ['a'] },
        { id: 'c', command: 'true', dependsOn: ['a'] },
        { id: 'd', command: 'true', dependsOn: ['b', 'c'] },
      ],
    });
    await page.getByRole('button', { name: /Graphs/ }).click();
    await page.locator(`.graph-row[data-graph-id="${graphId}"]`).click();
    await page.locator('.react-flow__node[data-id="d"] .stage-node').waitFor({ timeout: 30_000 });
    const worker = workers.find((u) => /elk-worker[^/]*\.js$/.test(u));
    expect(worker).toBeDefined();
    expect(worker?.startsWith(pathToFileURL(path.join(REPO, 'out/renderer/assets')).toString() + '/')).toBe(true);
    // laid out in layers: a before b and c, which come before d
    const x = async (id: string) => (await page.locator(`.react-flow__node[data-id="${id}"]`).boundingBox())?.x ?? 0;
    expect(await x('a')).toBeLessThan(await x('b'));
    expect(await x('c')).toBeLessThan(await x('d'));
  });

  it('a result that arrives raises a desktop notification, and the badge counts it', async () => {
    const { handoff } = await engine.call(as('asker'), 'handoff_create', { summary: 'Ship the release notes', to: 'worker' });
    await engine.call(as('worker'), 'handoff_accept', { handoffId: handoff.id });
    await engine.call(as('worker'), 'handoff_complete', { handoffId: handoff.id, result: 'Done: **notes** attached.' });
    await expect.poll(() => page.getByTestId('inbox-badge').innerText(), { timeout: 15_000 }).toBe('1');
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { __notes: string[] }).__notes))
      .toEqual(['A result waits for your approval: Ship the release notes']);
    expect(pageErrors).toEqual([]);
  });
});
