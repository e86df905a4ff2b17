/**
 * The desktop app run for real, with only Electron's binary missing: the built main process (out/main/app.js)
 * in its own Node process with the `electron` module standing in at its documented API (main-electron.mjs), and
 * each of its windows a real Chromium page where the built preload (out/preload/preload.cjs) runs in an isolated
 * world before the renderer's scripts (preload-world.js), exposing its bridge the way contextBridge does
 * (world-bridge.js, main-world.js). IPC between the two is carried by this process, as Electron's browser
 * process carries it: renderer → CDP binding → here → the main process's ipcMain, with `senderFrame` taken from
 * Chromium's frame tree (not from anything the page says); webContents.send → here → the preload's world.
 *
 * This file plays Chromium's browser side and the OS: it shows notifications (and clicks them when told),
 * answers dialogs as the test chooses, launches second instances, and closes windows as a person would.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { REPO } from '../../helpers/env';

const HERE = path.join(REPO, 'test/harness/electron');
const WORLD = 'electron-preload';
const BINDING = '__electronHarnessIpc';
const read = (name: string) => fs.readFileSync(path.join(HERE, name), 'utf8');

export interface DialogRequest {
  kind: 'open' | 'save' | 'message' | 'error';
  options: Record<string, unknown>;
}

export interface ShownNotification {
  id: number;
  title: string;
  body: string;
}

/** A tray item as the OS shows it: its tooltip, its context menu's items (labels, enabled), gone once destroyed. */
export interface HarnessTray {
  id: number;
  /** Shown in the panel (until destroyed). */
  shown: boolean;
  destroyed: boolean;
  toolTip: string;
  menu: Array<{ label?: string; type?: string; enabled?: boolean; hasClick: boolean }> | null;
  image: { width: number; height: number; template: boolean };
}

export interface HarnessWindow {
  id: number;
  options: { webPreferences?: Record<string, unknown> } & Record<string, unknown>;
  page: Page;
  cdp: CDPSession;
  /** What the main process asked of the window (focus, show, restore, reload…), in order. */
  calls: string[];
  /** Errors the preload threw while loading (Electron logs "Unable to load preload script"). */
  preloadErrors: string[];
  /** Navigations the page tried and whether the main process let them happen. */
  navigations: Array<{ url: string; prevented: boolean }>;
  loaded: Promise<void>;
}

type FromMain =
  | { t: 'window.create'; id: number; options: HarnessWindow['options'] }
  | { t: 'window.load'; id: number; url: string; reqId: number }
  | { t: 'window.call'; id: number; method: string; arg?: string }
  | { t: 'ipc.toRenderer'; id: number; channel: string; args: unknown[] }
  | { t: 'ipc.invokeReply'; id: number; invokeId: number; channel: string; ok: boolean; value?: unknown; error?: string }
  | { t: 'notification.show'; id: number; title: string; body: string }
  | { t: 'menu.set'; menu: unknown }
  | { t: 'dialog'; kind: DialogRequest['kind']; options: Record<string, unknown>; reqId?: number }
  | { t: 'reply-to-test'; reqId: number; value: unknown }
  | { t: 'shell.openExternal'; url: string }
  | ({ t: 'tray' } & HarnessTray)
  | { t: 'exit'; code: number };

// the preload's wire: a tagged JSON for what structured clone carries and JSON does not
function pack(value: unknown): unknown {
  if (value === undefined) return { $: 'undef' };
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return { $: 'u8', b64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (value instanceof Date) return { $: 'date', iso: value.toISOString() };
  if (Array.isArray(value)) return value.map(pack);
  return { $: 'obj', v: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, pack(v)])) };
}
function unpack(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(unpack);
  const tagged = value as { $: string; b64?: string; iso?: string; v?: Record<string, unknown> };
  if (tagged.$ === 'undef') return undefined;
  if (tagged.$ === 'u8') return new Uint8Array(Buffer.from(tagged.b64 ?? '', 'base64'));
  if (tagged.$ === 'date') return new Date(tagged.iso ?? 0);
  return Object.fromEntries(Object.entries(tagged.v ?? {}).map(([k, v]) => [k, unpack(v)]));
}

export interface LaunchOptions {
  browser: Browser;
  env: NodeJS.ProcessEnv;
  /** Electron's userData folder (the single-instance lock lives there). */
  userData: string;
  /** Shared with an instance already running (a second launch reuses its browser context). */
  context?: BrowserContext;
}

export class DesktopApp {
  readonly windows = new Map<number, HarnessWindow>();
  readonly notifications: ShownNotification[] = [];
  readonly dialogs: DialogRequest[] = [];
  readonly openedExternally: string[] = [];
  /** Every tray item the app made, by id, as last reported (a destroyed one stays, marked). */
  readonly trays = new Map<number, HarnessTray>();
  menu: unknown = null;
  stdout = '';
  stderr = '';
  exitCode: number | null = null;
  readonly exited: Promise<number | null>;
  /** How dialogs are answered (default: cancelled). */
  answerDialog: (request: DialogRequest) => unknown = (r) => (r.kind === 'message' ? { response: 0, checkboxChecked: false } : { canceled: true, filePaths: [] });
  private readonly child: ChildProcess;
  private context: BrowserContext | undefined;
  private readonly waiters = new Map<number, (value: unknown) => void>();
  private nextRequest = 1;
  private readonly windowListeners: Array<(w: HarnessWindow) => void> = [];
  private queue: Promise<void> = Promise.resolve();

  private constructor(private readonly options: LaunchOptions) {
    this.context = options.context;
    fs.mkdirSync(options.userData, { recursive: true });
    this.child = fork(path.join(REPO, 'out/main/app.js'), [], {
      execArgv: ['--import', pathToFileURL(path.join(HERE, 'loader.mjs')).href],
      env: { ...options.env, ELECTRON_HARNESS_USER_DATA: options.userData },
      serialization: 'advanced',
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child.stdout?.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code) => {
        this.exitCode = code;
        // the app's windows end with its process
        for (const w of this.windows.values()) if (!w.page.isClosed()) void w.page.close().catch(() => undefined);
        resolve(code);
      }),
    );
    // in order, as Chromium's browser process handles them: a window exists before it is loaded or sent to
    this.child.on('message', (m: FromMain) => {
      this.queue = this.queue.then(() => this.fromMain(m)).catch((e: unknown) => void (this.stderr += `[harness] ${String(e)}\n`));
    });
  }

  static launch(options: LaunchOptions): DesktopApp {
    return new DesktopApp(options);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The first window, once its page has loaded. */
  async firstWindow(timeoutMs = 30_000): Promise<HarnessWindow> {
    const existing = [...this.windows.values()][0];
    const win =
      existing ??
      (await new Promise<HarnessWindow>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no window within ${timeoutMs} ms; stderr: ${this.stderr}`)), timeoutMs);
        this.windowListeners.push((w) => (clearTimeout(timer), resolve(w)));
        void this.exited.then((code) => reject(new Error(`the app exited (${code}) before opening a window; stderr: ${this.stderr}`)));
      }));
    await win.loaded;
    return win;
  }

  /** The tray item shown now, if any. */
  get tray(): HarnessTray | undefined {
    return [...this.trays.values()].find((t) => !t.destroyed);
  }

  /** A window opened after the one with id `afterId` (reopened from the tray, say), once its page has loaded. */
  async windowAfter(afterId: number, timeoutMs = 30_000): Promise<HarnessWindow> {
    const started = Date.now();
    for (;;) {
      const found = [...this.windows.values()].find((w) => w.id > afterId);
      if (found) {
        await found.loaded;
        return found;
      }
      if (this.exitCode !== null) throw new Error(`the app exited (${this.exitCode}) before opening another window; stderr: ${this.stderr}`);
      if (Date.now() - started > timeoutMs) throw new Error(`no new window within ${timeoutMs} ms; stderr: ${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * The person clicks the tray item's menu item `label` (or, without a label, activates the icon itself).
   * Resolves with whether a click handler ran.
   */
  async clickTray(label?: string): Promise<boolean> {
    const tray = this.tray;
    if (!tray) throw new Error('no tray item is shown');
    return (await this.ask({ t: 'tray.click', id: tray.id, label })) === true;
  }

  /** The person clicks a notification the app showed. */
  clickNotification(id: number): void {
    this.child.send({ t: 'notification.click', id });
  }

  /** The person quits (the Quit menu item, Cmd-Q): app.quit(). Resolves with the exit code. */
  quit(): Promise<number | null> {
    if (this.exitCode === null) this.child.send({ t: 'app.quit' });
    return this.exited;
  }

  /** The person picks Quit without waiting for the app to end (it may ask first, and stay). */
  askToQuit(): void {
    if (this.exitCode === null) this.child.send({ t: 'app.quit' });
  }

  /** The person closes a window with its close button. */
  closeWindow(id: number): void {
    this.child.send({ t: 'window.closed-by-person', id });
  }

  /** The page asks for a permission (camera, notifications…): what the app's session handler answers. */
  requestPermission(id: number, permission: string): Promise<unknown> {
    return this.ask({ t: 'permission', id, permission, url: this.windows.get(id)?.page.url() });
  }

  /** The response headers the app's session hook leaves on a response of `url` (e.g. its CSP). */
  responseHeaders(url: string, headers: Record<string, string[]>): Promise<Record<string, string[]>> {
    return this.ask({ t: 'headers', url, headers }) as Promise<Record<string, string[]>>;
  }

  /** The person picks a standard menu item (Edit → Paste…): its role runs on the focused window. */
  async menuRole(role: 'copy' | 'paste' | 'cut' | 'selectAll'): Promise<void> {
    if ((await this.ask({ t: 'menu.role', role })) !== true) throw new Error(`no window for the ${role} role`);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  /** A message to the main process; one for an app that has ended is lost, as it is for Electron's windows. */
  private toMain(message: Record<string, unknown>): void {
    if (this.child.connected) this.child.send(message);
  }

  private ask(message: Record<string, unknown>): Promise<unknown> {
    const reqId = this.nextRequest++;
    // an app that has exited answers nothing (a navigation then is simply not allowed)
    if (!this.child.connected) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiters.set(reqId, resolve);
      this.child.send({ ...message, reqId });
    });
  }

  private async fromMain(m: FromMain): Promise<void> {
    switch (m.t) {
      case 'window.create':
        await this.createWindow(m.id, m.options);
        return;
      case 'window.load': {
        // not awaited: what the page says while it loads must get through
        const win = this.windows.get(m.id);
        void (async () => {
          if (!win) throw new Error('no such window');
          await win.page.goto(m.url);
        })().then(
          () => this.child.send({ t: 'reply', reqId: m.reqId, ok: true }),
          (error: unknown) => this.child.send({ t: 'reply', reqId: m.reqId, ok: false, error: error instanceof Error ? error.message : String(error) }),
        );
        return;
      }
      case 'window.call': {
        const win = this.windows.get(m.id);
        if (!win) return;
        win.calls.push(m.method);
        if (m.method === 'reload') void win.page.reload().catch(() => undefined);
        if (m.method === 'close' && !win.page.isClosed()) await win.page.close();
        if (m.method === 'focus') await win.page.bringToFront();
        if (m.method === 'editCommand' && m.arg) await win.cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', commands: [m.arg] });
        return;
      }
      case 'ipc.toRenderer':
        this.deliverers.get(m.id)?.({ kind: 'message', channel: m.channel, args: pack(m.args) });
        return;
      case 'ipc.invokeReply':
        this.deliverers.get(m.id)?.({ kind: 'reply', id: m.invokeId, channel: m.channel, ok: m.ok, value: pack(m.value), error: m.error });
        return;
      case 'notification.show':
        this.notifications.push({ id: m.id, title: m.title, body: m.body });
        return;
      case 'menu.set':
        this.menu = m.menu;
        return;
      case 'dialog': {
        const request = { kind: m.kind, options: m.options };
        this.dialogs.push(request);
        if (m.reqId !== undefined) this.child.send({ t: 'reply', reqId: m.reqId, ok: true, value: this.answerDialog(request) });
        return;
      }
      case 'reply-to-test':
        this.waiters.get(m.reqId)?.(m.value);
        this.waiters.delete(m.reqId);
        return;
      case 'shell.openExternal':
        this.openedExternally.push(m.url);
        return;
      case 'tray': {
        const { t: _t, ...tray } = m;
        this.trays.set(tray.id, tray);
        return;
      }
      case 'exit':
        return;
    }
  }

  private async createWindow(id: number, options: HarnessWindow['options']): Promise<void> {
    const prefs = options.webPreferences ?? {};
    // the harness reproduces the sandboxed, isolated window the app asks for, and nothing looser
    if (prefs.sandbox !== true || prefs.contextIsolation !== true || prefs.nodeIntegration === true) {
      throw new Error(`the harness runs only sandboxed, context-isolated windows without Node; got ${JSON.stringify(prefs)}`);
    }
    const width = typeof options.width === 'number' ? options.width : 800;
    const height = typeof options.height === 'number' ? options.height : 600;
    if (!this.context) {
      this.context = await this.options.browser.newContext({ viewport: { width, height } });
      await this.guardNavigations(this.context);
    }
    const page = await this.context.newPage();
    await page.setViewportSize({ width, height });
    const cdp = await this.context.newCDPSession(page);
    let markLoaded: () => void = () => undefined;
    const win: HarnessWindow = { id, options, page, cdp, calls: [], preloadErrors: [], navigations: [], loaded: new Promise((r) => (markLoaded = r)) };
    this.windows.set(id, win);
    const frames = new Map<string, { url: string; parentId: string | undefined }>();
    const preloadContexts = new Map<string, number>();
    const contextFrames = new Map<number, string>();
    let mainFrameId = '';
    cdp.on('Page.frameNavigated', ({ frame }) => {
      frames.set(frame.id, { url: frame.url + (frame.urlFragment ?? ''), parentId: frame.parentId });
      if (!frame.parentId) {
        mainFrameId = frame.id;
        this.toMain({ t: 'navigated', id, url: frame.url });
      }
    });
    cdp.on('Page.navigatedWithinDocument', ({ frameId, url }) => {
      const frame = frames.get(frameId);
      if (frame) frame.url = url;
    });
    cdp.on('Runtime.executionContextCreated', ({ context }) => {
      const aux = context.auxData as { frameId?: string } | undefined;
      if (context.name !== WORLD || !aux?.frameId) return;
      preloadContexts.set(aux.frameId, context.id);
      contextFrames.set(context.id, aux.frameId);
    });
    cdp.on('Runtime.executionContextDestroyed', ({ executionContextId }) => {
      const frameId = contextFrames.get(executionContextId);
      contextFrames.delete(executionContextId);
      if (frameId && preloadContexts.get(frameId) === executionContextId) preloadContexts.delete(frameId);
    });
    cdp.on('Runtime.bindingCalled', ({ name, payload, executionContextId }) => {
      if (name !== BINDING) return;
      const frameId = contextFrames.get(executionContextId);
      const frame = frameId ? frames.get(frameId) : undefined;
      const packet = JSON.parse(payload) as { kind: string; channel?: string; args?: unknown; id?: number; message?: string };
      if (packet.kind === 'preload-error') {
        win.preloadErrors.push(packet.message ?? '');
        return;
      }
      // senderFrame as Chromium's frame tree has it; null once the frame is gone
      const senderFrame = frame ? { url: frame.url, isMain: frame.parentId === undefined } : null;
      this.toMain({ t: 'ipc.toMain', id, kind: packet.kind, channel: packet.channel, args: unpack(packet.args), invokeId: packet.id, frame: senderFrame });
    });
    this.deliverers.set(id, (packet) => {
      const contextId = preloadContexts.get(mainFrameId);
      // like Electron, a message sent while the page has no preload world (loading, gone) is lost
      if (page.isClosed() || contextId === undefined) return;
      void cdp.send('Runtime.evaluate', { contextId, expression: `__electronHarnessDeliver(${JSON.stringify(JSON.stringify(packet))})` }).catch(() => undefined);
    });
    await cdp.send('Page.enable');
    await cdp.send('Runtime.enable');
    await cdp.send('Runtime.addBinding', { name: BINDING, executionContextName: WORLD });
    const bridge = read('world-bridge.js');
    await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: `${bridge}\n${read('main-world.js')}` });
    const preloadFile = typeof prefs.preload === 'string' ? prefs.preload : null;
    if (preloadFile) {
      const processInfo = JSON.stringify({ platform: process.platform, arch: process.arch, versions: { electron: '45.5.0', chrome: 'harness', node: process.versions.node }, env: {}, argv: [] });
      const world = read('preload-world.js')
        .split('__BINDING_NAME__')
        .join(JSON.stringify(BINDING))
        .split('__PROCESS_INFO__')
        .join(processInfo)
        .split('__PRELOAD_SOURCE__;')
        .join(fs.readFileSync(preloadFile, 'utf8'));
      await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: `${bridge}\n${world}`, worldName: WORLD });
    }
    // renderer-initiated navigations away from the page ask the main process first (will-navigate); no network
    // here, so one it allows is answered with an empty page
    page.on('close', () => this.child.connected && this.child.send({ t: 'window.closed-by-person', id }));
    page.once('load', () => markLoaded());
    for (const listener of this.windowListeners.splice(0)) listener(win);
  }

  private readonly deliverers = new Map<number, (packet: Record<string, unknown>) => void>();

  /**
   * Navigations the page starts itself ask the main process first, as Chromium asks Electron: a window's own
   * page → will-navigate; a window it opened (window.open, target=_blank) → the window-open handler. There is
   * no network here, so one that is allowed gets an empty page.
   */
  private async guardNavigations(context: BrowserContext): Promise<void> {
    await context.route(/^https?:/, async (route) => {
      const request = route.request();
      if (!request.isNavigationRequest()) return route.abort();
      let from: Page | null = null;
      try {
        from = request.frame().page();
      } catch {
        // a new window's first navigation: its frame does not exist yet
      }
      const own = [...this.windows.values()].find((w) => w.page === from);
      if (own && from) {
        if (request.frame() !== from.mainFrame()) return route.abort();
        const prevented = (await this.ask({ t: 'will-navigate', id: own.id, url: request.url() })) === true;
        own.navigations.push({ url: request.url(), prevented });
        // a 204 answer leaves the page where it is, as a cancelled navigation does in Electron
        return prevented ? route.fulfill({ status: 204, body: '' }) : route.fulfill({ contentType: 'text/html', body: '<p>navigated away</p>' });
      }
      const opener = from ? await from.opener() : null;
      const parent = [...this.windows.values()].find((w) => w.page === opener) ?? [...this.windows.values()].at(-1);
      if (!parent) return route.abort();
      const result = (await this.ask({ t: 'window-open', id: parent.id, url: request.url() })) as { action?: string } | undefined;
      // an app that no longer answers opens nothing
      const denied = result?.action !== 'allow';
      parent.navigations.push({ url: `window.open ${request.url()}`, prevented: denied });
      if (!denied) return route.fulfill({ contentType: 'text/html', body: '<p>opened</p>' });
      await route.abort();
      // the window Chromium opened for it goes: Electron never creates it
      const windowsPages = new Set([...this.windows.values()].map((w) => w.page));
      for (const extra of context.pages()) if (!windowsPages.has(extra)) await extra.close();
    });
  }
}
