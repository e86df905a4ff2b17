/**
 * The Electron shell with a fake `electron` module (Electron itself cannot start on this machine).
 * The room process behind it is real: the IPC answer is checked against a live endpoint.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeHome } from '../helpers/env';

type Handler = (...args: unknown[]) => unknown;

const fake = vi.hoisted(() => {
  const appHandlers = new Map<string, Handler[]>();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const windows: { options: Record<string, unknown>; loaded?: string }[] = [];
  const ipc = new Map<string, Handler>();
  const sessionState: { permissionRequest?: Handler; permissionCheck?: Handler; headers?: Handler } = {};
  class BrowserWindow {
    loaded?: string;
    constructor(readonly options: Record<string, unknown>) {
      windows.push(this);
    }
    async loadFile(file: string) {
      this.loaded = file;
    }
    async loadURL(url: string) {
      this.loaded = url;
    }
  }
  const app = {
    requestSingleInstanceLock: () => true,
    on: (event: string, fn: Handler) => appHandlers.set(event, [...(appHandlers.get(event) ?? []), fn]),
    whenReady: () => ready,
    quit: () => undefined,
    exit: (() => undefined) as (code?: number) => void,
  };
  const session = {
    defaultSession: {
      setPermissionRequestHandler: (fn: Handler) => (sessionState.permissionRequest = fn),
      setPermissionCheckHandler: (fn: Handler) => (sessionState.permissionCheck = fn),
      webRequest: { onHeadersReceived: (fn: Handler) => (sessionState.headers = fn) },
    },
  };
  const ipcMain = { handle: (channel: string, fn: Handler) => ipc.set(channel, fn), on: (channel: string, fn: Handler) => ipc.set(channel, fn) };
  return { app, appHandlers, markReady, windows, ipc, sessionState, BrowserWindow, session, ipcMain };
});

vi.mock('electron', () => ({ app: fake.app, BrowserWindow: fake.BrowserWindow, ipcMain: fake.ipcMain, session: fake.session }));

const home = makeHome();
const rendererUrl = pathToFileURL(path.resolve(import.meta.dirname, '../../src-main/renderer/index.html')).toString();

beforeAll(async () => {
  process.env.COMMONROOM_DATA_DIR = home.paths.dataDir;
  process.env.COMMONROOM_CONFIG_DIR = home.paths.configDir;
  process.env.COMMONROOM_PORT = '0';
  delete process.env.ELECTRON_RENDERER_URL;
  await import('../../src-main/app/main');
  fake.markReady();
  await vi.waitFor(() => expect(fake.windows.length).toBe(1), { timeout: 10_000 });
});

afterAll(async () => {
  const exited = new Promise<number | undefined>((resolve) => (fake.app.exit = resolve));
  for (const fn of fake.appHandlers.get('before-quit') ?? []) fn({ preventDefault: () => undefined });
  expect(await exited).toBe(0);
  home.cleanup();
});

function fakeContents() {
  const handlers = new Map<string, Handler>();
  let openHandler: Handler | undefined;
  const contents = {
    on: (event: string, fn: Handler) => handlers.set(event, fn),
    setWindowOpenHandler: (fn: Handler) => (openHandler = fn),
  };
  for (const fn of fake.appHandlers.get('web-contents-created') ?? []) fn({}, contents);
  const prevented = (event: string, url?: string) => {
    let stopped = false;
    handlers.get(event)?.({ preventDefault: () => (stopped = true) }, url);
    return stopped;
  };
  return { prevented, open: (url: string) => openHandler?.({ url }) };
}

describe('the Electron shell', () => {
  it('opens its window with secure defaults and the sandboxed CommonJS preload', () => {
    const prefs = fake.windows[0]?.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(String(prefs.preload)).toMatch(/preload[/\\]preload\.cjs$/);
    expect(fake.windows[0]?.loaded).toMatch(/renderer[/\\]index\.html$/);
  });

  it('denies navigation away from the renderer, new windows and webviews', () => {
    const c = fakeContents();
    expect(c.prevented('will-navigate', 'https://evil.example/')).toBe(true);
    expect(c.prevented('will-redirect', 'http://127.0.0.1:1/')).toBe(true);
    expect(c.prevented('will-navigate', rendererUrl)).toBe(false);
    expect(c.prevented('will-attach-webview')).toBe(true);
    expect(c.open('https://evil.example/')).toEqual({ action: 'deny' });
  });

  it('sets a strict CSP on every response and refuses every permission request', () => {
    let headers: Record<string, string[]> = {};
    fake.sessionState.headers?.({ responseHeaders: {} }, (r: { responseHeaders: Record<string, string[]> }) => (headers = r.responseHeaders));
    const csp = headers['Content-Security-Policy']?.[0] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    let granted: boolean | undefined;
    fake.sessionState.permissionRequest?.({}, 'media', (ok: boolean) => (granted = ok));
    expect(granted).toBe(false);
    expect(fake.sessionState.permissionCheck?.()).toBe(false);
  });

  it('answers the endpoint over IPC only to its own renderer, and the endpoint is live', async () => {
    const handler = fake.ipc.get('commonroom:endpoint');
    expect(handler).toBeDefined();
    expect(() => handler?.({ senderFrame: { url: 'https://evil.example/' } })).toThrow(/untrusted sender/);
    expect(() => handler?.({ senderFrame: null })).toThrow(/untrusted sender/);
    const info = handler?.({ senderFrame: { url: rendererUrl } }) as { mcpUrl: string; tokenFile: string; room: string };
    expect(info.room).toBe(path.join(home.paths.dataDir, 'rooms', 'default.md'));
    const unauthenticated = await fetch(info.mcpUrl, { method: 'POST', body: '{}' });
    expect(unauthenticated.status).toBe(401);
  });
});
