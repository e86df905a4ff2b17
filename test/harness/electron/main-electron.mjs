// The `electron` module as the app's main process sees it, standing in for Electron's binary (which cannot be
// had on this machine). Each piece follows Electron's documented API and behaviour; the renderer side of each
// window is a real Chromium page that the test process drives (desktop.ts), reached over this process's IPC
// channel (fork with advanced serialization, so structured clone carries the messages as Electron's IPC does).
//
// Documented behaviour kept: app.quit() emits before-quit (preventable), closes the windows, emits will-quit and
// exits 0; app.exit(code) exits at once without those events; closing the last window emits window-all-closed
// (and quits when nobody listens); requestSingleInstanceLock() is false while another instance of the same
// userData holds it, and that instance hears 'second-instance' (argv, workingDirectory); ipcMain events carry
// `sender` (the WebContents) and `senderFrame` (url, parent: null for the main frame); webContents.send
// structured-clones its arguments; Notification shows and emits 'click'; dialogs answer what the test chose;
// Tray shows its item, emits 'click' when its icon is activated and runs its menu items' click; destroy() removes it.
import { Buffer } from 'node:buffer';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const send = (message) => process.send?.(message);
const replies = new Map();
let nextRequest = 1;
function request(message) {
  const reqId = nextRequest++;
  return new Promise((resolve, reject) => {
    replies.set(reqId, { resolve, reject });
    send({ ...message, reqId });
  });
}

class PreventableEvent {
  defaultPrevented = false;
  preventDefault() {
    this.defaultPrevented = true;
  }
}

// ---- app ------------------------------------------------------------------------------------------------
class App extends EventEmitter {
  name = 'Commonroom';
  isPackaged = false;
  #ready = false;
  #readyPromise;
  #lockFile = null;
  #quitting = false;
  constructor() {
    super();
    this.#readyPromise = new Promise((resolve) =>
      setImmediate(() => {
        this.#ready = true;
        this.emit('ready', new PreventableEvent(), {});
        resolve();
      }),
    );
  }
  whenReady() {
    return this.#readyPromise;
  }
  isReady() {
    return this.#ready;
  }
  getName() {
    return this.name;
  }
  getVersion() {
    return JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version;
  }
  getPath(name) {
    const userData = process.env.ELECTRON_HARNESS_USER_DATA ?? path.join(os.homedir(), '.config', this.name);
    const paths = { userData, appData: path.dirname(userData), home: os.homedir(), temp: os.tmpdir(), logs: path.join(userData, 'logs'), sessionData: userData };
    if (!(name in paths)) throw new Error(`Failed to get '${name}' path`);
    return paths[name];
  }
  requestSingleInstanceLock(additionalData) {
    const dir = this.getPath('userData');
    fs.mkdirSync(dir, { recursive: true });
    const lock = path.join(dir, 'SingletonLock');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
        this.#lockFile = lock;
        // the first instance hears later launches: each leaves its argv in a file here
        fs.watch(dir, (_kind, file) => {
          if (!file || !file.startsWith('SingletonLaunch-') || !file.endsWith('.json')) return;
          const full = path.join(dir, file);
          let launch;
          try {
            launch = JSON.parse(fs.readFileSync(full, 'utf8'));
            fs.rmSync(full);
          } catch {
            return;
          }
          this.emit('second-instance', new PreventableEvent(), launch.argv, launch.workingDirectory, launch.additionalData ?? null);
        }).unref();
        return true;
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
        const holder = Number(fs.readFileSync(lock, 'utf8'));
        let alive = false;
        try {
          process.kill(holder, 0);
          alive = holder !== process.pid;
        } catch {
          // no such process: the lock is stale
        }
        if (!alive) {
          fs.rmSync(lock, { force: true });
          continue;
        }
        const note = path.join(dir, `SingletonLaunch-${process.pid}.json`);
        fs.writeFileSync(`${note}.tmp`, JSON.stringify({ argv: process.argv, workingDirectory: process.cwd(), additionalData }));
        fs.renameSync(`${note}.tmp`, note);
        return false;
      }
    }
    return false;
  }
  hasSingleInstanceLock() {
    return this.#lockFile !== null;
  }
  quit() {
    if (this.#quitting) return;
    const event = new PreventableEvent();
    this.emit('before-quit', event);
    if (event.defaultPrevented) return;
    this.#quitting = true;
    for (const win of [...windows]) win.close();
    const willQuit = new PreventableEvent();
    this.emit('will-quit', willQuit);
    if (willQuit.defaultPrevented) {
      this.#quitting = false;
      return;
    }
    this.emit('quit', new PreventableEvent(), 0);
    this.exit(0);
  }
  exit(code = 0) {
    if (this.#lockFile) fs.rmSync(this.#lockFile, { force: true });
    send({ t: 'exit', code });
    // let the message reach the test before the process ends
    setImmediate(() => process.exit(code));
  }
  focus() {}
  setAppUserModelId() {}
  get quitting() {
    return this.#quitting;
  }
}
export const app = new App();

// ---- windows and web contents --------------------------------------------------------------------------------
const windows = new Set();
const byId = new Map();
let nextWindowId = 1;

class WebContents extends EventEmitter {
  #destroyed = false;
  #url = '';
  #windowOpenHandler = null;
  constructor(id) {
    super();
    this.id = id;
  }
  send(channel, ...args) {
    if (this.#destroyed) throw new Error('Object has been destroyed');
    // structured clone, as Electron's IPC serialises: a function or a class's prototype does not survive
    send({ t: 'ipc.toRenderer', id: this.id, channel, args: structuredClone(args) });
  }
  isDestroyed() {
    return this.#destroyed;
  }
  getURL() {
    return this.#url;
  }
  reload() {
    send({ t: 'window.call', id: this.id, method: 'reload' });
  }
  setWindowOpenHandler(handler) {
    this.#windowOpenHandler = handler;
  }
  copy() {
    send({ t: 'window.call', id: this.id, method: 'editCommand', arg: 'copy' });
  }
  paste() {
    send({ t: 'window.call', id: this.id, method: 'editCommand', arg: 'paste' });
  }
  cut() {
    send({ t: 'window.call', id: this.id, method: 'editCommand', arg: 'cut' });
  }
  selectAll() {
    send({ t: 'window.call', id: this.id, method: 'editCommand', arg: 'selectAll' });
  }
  // harness-only entry points (what Chromium would report)
  _navigated(url) {
    this.#url = url;
  }
  _windowOpen(url) {
    return this.#windowOpenHandler ? this.#windowOpenHandler({ url, frameName: '', features: '', disposition: 'new-window' }) : { action: 'allow' };
  }
  _destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.emit('destroyed');
  }
}

export class BrowserWindow extends EventEmitter {
  #destroyed = false;
  #minimized = false;
  #visible = true;
  constructor(options = {}) {
    super();
    this.id = nextWindowId++;
    this.webContents = new WebContents(this.id);
    windows.add(this);
    byId.set(this.id, this);
    send({ t: 'window.create', id: this.id, options: structuredClone(options) });
    app.emit('browser-window-created', new PreventableEvent(), this);
    app.emit('web-contents-created', new PreventableEvent(), this.webContents);
  }
  static getAllWindows() {
    return [...windows];
  }
  static fromWebContents(contents) {
    return byId.get(contents.id) ?? null;
  }
  async loadFile(file, options = {}) {
    const url = new URL(`file://${path.resolve(file)}`);
    if (options.hash) url.hash = options.hash;
    if (options.query) for (const [k, v] of Object.entries(options.query)) url.searchParams.set(k, v);
    return this.loadURL(url.toString());
  }
  async loadURL(url) {
    await request({ t: 'window.load', id: this.id, url });
    this.webContents._navigated(url);
    this.webContents.emit('did-finish-load');
  }
  isDestroyed() {
    return this.#destroyed;
  }
  isMinimized() {
    return this.#minimized;
  }
  isVisible() {
    return this.#visible;
  }
  #call(method) {
    send({ t: 'window.call', id: this.id, method });
  }
  show() {
    this.#visible = true;
    this.#call('show');
  }
  hide() {
    this.#visible = false;
    this.#call('hide');
  }
  focus() {
    this.#call('focus');
    this.emit('focus');
  }
  minimize() {
    this.#minimized = true;
    this.#call('minimize');
  }
  restore() {
    this.#minimized = false;
    this.#call('restore');
  }
  close() {
    if (this.#destroyed) return;
    const event = new PreventableEvent();
    this.emit('close', event);
    if (event.defaultPrevented) return;
    this.destroy();
  }
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    windows.delete(this);
    this.#call('close');
    this.webContents._destroy();
    this.emit('closed');
    if (windows.size === 0 && !app.quitting) {
      if (app.listenerCount('window-all-closed') > 0) app.emit('window-all-closed');
      else app.quit();
    }
  }
}

// ---- ipcMain --------------------------------------------------------------------------------------------
class IpcMain extends EventEmitter {
  #handlers = new Map();
  handle(channel, handler) {
    if (this.#handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.#handlers.set(channel, handler);
  }
  removeHandler(channel) {
    this.#handlers.delete(channel);
  }
  _handler(channel) {
    return this.#handlers.get(channel);
  }
}
export const ipcMain = new IpcMain();

// ---- session (permission handlers, header rewriting) ---------------------------------------------------------
const sessionState = { permissionRequest: null, permissionCheck: null, headersReceived: null };
export const session = {
  defaultSession: {
    setPermissionRequestHandler: (fn) => (sessionState.permissionRequest = fn),
    setPermissionCheckHandler: (fn) => (sessionState.permissionCheck = fn),
    webRequest: { onHeadersReceived: (fn) => (sessionState.headersReceived = fn) },
  },
};

// ---- Notification, Menu, dialog, shell --------------------------------------------------------------------------
const notifications = new Map();
let nextNotification = 1;
export class Notification extends EventEmitter {
  static isSupported() {
    return true;
  }
  constructor(options = {}) {
    super();
    this.id = nextNotification++;
    this.title = options.title ?? '';
    this.body = options.body ?? '';
    this.options = options;
  }
  show() {
    notifications.set(this.id, this);
    send({ t: 'notification.show', id: this.id, title: this.title, body: this.body });
    this.emit('show', new PreventableEvent());
  }
  close() {
    notifications.delete(this.id);
    this.emit('close', new PreventableEvent());
  }
}

function menuItems(template) {
  return template.map((item) => {
    const { click, submenu, ...rest } = item;
    const out = { ...rest, hasClick: typeof click === 'function' };
    if (Array.isArray(submenu)) out.submenu = menuItems(submenu);
    return out;
  });
}
/** A built menu: `items` as the test sees them (no functions), and the template, whose items' click runs. */
function builtMenu(template) {
  const menu = { items: menuItems(template) };
  Object.defineProperty(menu, 'template', { value: template, enumerable: false });
  return menu;
}
/** Clicks a menu item by its label: its `click(menuItem, browserWindow, event)` runs, as Electron calls it. */
function clickMenuItem(menu, label) {
  const find = (items) => {
    for (const item of items ?? []) {
      if (item.label === label) return item;
      const inner = Array.isArray(item.submenu) ? find(item.submenu) : undefined;
      if (inner) return inner;
    }
    return undefined;
  };
  const item = menu ? find(menu.template) : undefined;
  // a disabled item cannot be clicked
  if (!item || item.enabled === false || typeof item.click !== 'function') return false;
  item.click(item, [...windows].at(-1) ?? undefined, { triggeredByAccelerator: false });
  return true;
}
export const Menu = {
  buildFromTemplate: (template) => builtMenu(template),
  setApplicationMenu: (menu) => send({ t: 'menu.set', menu: menu ? menu.items : null }),
  getApplicationMenu: () => null,
};

// ---- nativeImage, Tray ------------------------------------------------------------------------------------------
class NativeImage {
  #dataUrl;
  #template = false;
  constructor(dataUrl) {
    this.#dataUrl = dataUrl;
  }
  isEmpty() {
    return this.#dataUrl === '';
  }
  toDataURL() {
    return this.#dataUrl === '' ? 'data:image/png;base64,' : this.#dataUrl;
  }
  getSize() {
    // a PNG's width and height are in its IHDR chunk, bytes 16..24
    const b64 = /^data:image\/png;base64,(.*)$/.exec(this.#dataUrl)?.[1];
    if (!b64) return { width: 0, height: 0 };
    const bytes = Buffer.from(b64, 'base64');
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  setTemplateImage(option) {
    this.#template = Boolean(option);
  }
  isTemplateImage() {
    return this.#template;
  }
}
export const nativeImage = {
  createEmpty: () => new NativeImage(''),
  createFromDataURL: (dataUrl) => new NativeImage(/^data:image\/(png|jpeg);base64,/.test(dataUrl) ? dataUrl : ''),
  createFromPath: (file) => {
    try {
      return new NativeImage(`data:image/png;base64,${fs.readFileSync(file).toString('base64')}`);
    } catch {
      return new NativeImage('');
    }
  },
};

// Tray, as documented (Electron 45's tray.md): new Tray(image), a context menu, a tooltip; 'click' when the person
// activates the icon (on Linux a StatusNotifierItem: a left click or a double click, as the desktop decides);
// destroy() removes it at once. A menu item's click runs its handler.
const trays = new Map();
let nextTray = 1;
export class Tray extends EventEmitter {
  #destroyed = false;
  #menu = null;
  #toolTip = '';
  #image;
  constructor(image) {
    super();
    if (!(image instanceof NativeImage) && typeof image !== 'string') throw new TypeError('Error processing argument at index 0, conversion failure');
    this.#image = image instanceof NativeImage ? image : nativeImage.createFromPath(image);
    this.id = nextTray++;
    trays.set(this.id, this);
    this.#report();
  }
  #report() {
    const size = this.#image.getSize();
    const shown = !this.#destroyed;
    send({ t: 'tray', id: this.id, destroyed: this.#destroyed, shown, toolTip: this.#toolTip, menu: this.#menu ? this.#menu.items : null, image: { ...size, template: this.#image.isTemplateImage() } });
  }
  #live() {
    if (this.#destroyed) throw new Error('Object has been destroyed');
  }
  setToolTip(toolTip) {
    this.#live();
    this.#toolTip = String(toolTip);
    this.#report();
  }
  setContextMenu(menu) {
    this.#live();
    this.#menu = menu;
    this.#report();
  }
  setImage(image) {
    this.#live();
    this.#image = image;
    this.#report();
  }
  isDestroyed() {
    return this.#destroyed;
  }
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    trays.delete(this.id);
    this.#report();
  }
  // harness-only entry points (what the OS reports)
  _click() {
    this.emit('click', new PreventableEvent(), { x: 0, y: 0, width: 16, height: 16 }, { x: 0, y: 0 });
    return true;
  }
  _clickItem(label) {
    return clickMenuItem(this.#menu, label);
  }
}

export const dialog = {
  showOpenDialog: (win, options) => request({ t: 'dialog', kind: 'open', options: structuredClone(win instanceof BrowserWindow ? options : win) }),
  showSaveDialog: (win, options) => request({ t: 'dialog', kind: 'save', options: structuredClone(win instanceof BrowserWindow ? options : win) }),
  showMessageBox: (win, options) => request({ t: 'dialog', kind: 'message', options: structuredClone(win instanceof BrowserWindow ? options : win) }),
  showErrorBox: (title, content) => send({ t: 'dialog', kind: 'error', options: { title, content } }),
};

export const shell = {
  openExternal: async (url) => send({ t: 'shell.openExternal', url }),
};

// ---- what the test process (standing in for Chromium and the OS) tells us --------------------------------------
process.on('message', (message) => {
  switch (message.t) {
    case 'reply': {
      const waiter = replies.get(message.reqId);
      replies.delete(message.reqId);
      if (!waiter) return;
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new Error(message.error));
      return;
    }
    case 'ipc.toMain': {
      const win = byId.get(message.id);
      if (!win || win.isDestroyed()) return;
      const senderFrame = message.frame ? { url: message.frame.url, parent: message.frame.isMain ? null : {}, routingId: 1, processId: 1 } : null;
      const event = { sender: win.webContents, senderFrame, processId: 1, frameId: 1, ports: [], returnValue: undefined, reply: (...a) => win.webContents.send(message.channel, ...a) };
      if (message.kind === 'invoke') {
        const handler = ipcMain._handler(message.channel);
        Promise.resolve()
          .then(() => {
            if (!handler) throw new Error(`No handler registered for '${message.channel}'`);
            return handler(event, ...message.args);
          })
          .then(
            (value) => send({ t: 'ipc.invokeReply', id: message.id, invokeId: message.invokeId, channel: message.channel, ok: true, value: structuredClone(value) }),
            (error) => send({ t: 'ipc.invokeReply', id: message.id, invokeId: message.invokeId, channel: message.channel, ok: false, error: `Error: ${error.message}` }),
          );
        return;
      }
      ipcMain.emit(message.channel, event, ...message.args);
      return;
    }
    case 'navigated':
      byId.get(message.id)?.webContents._navigated(message.url);
      return;
    case 'will-navigate': {
      const contents = byId.get(message.id)?.webContents;
      const event = new PreventableEvent();
      event.url = message.url;
      contents?.emit(message.redirect ? 'will-redirect' : 'will-navigate', event, message.url);
      send({ t: 'reply-to-test', reqId: message.reqId, value: event.defaultPrevented });
      return;
    }
    case 'window-open': {
      const result = byId.get(message.id)?.webContents._windowOpen(message.url) ?? { action: 'deny' };
      send({ t: 'reply-to-test', reqId: message.reqId, value: { action: result.action } });
      return;
    }
    case 'permission': {
      const handler = sessionState.permissionRequest;
      const contents = byId.get(message.id)?.webContents;
      if (!handler) return send({ t: 'reply-to-test', reqId: message.reqId, value: true });
      handler(contents, message.permission, (granted) => send({ t: 'reply-to-test', reqId: message.reqId, value: granted }), { requestingUrl: message.url });
      return;
    }
    case 'headers': {
      // what the session's onHeadersReceived hook makes of a response's headers
      const hook = sessionState.headersReceived;
      if (!hook) return send({ t: 'reply-to-test', reqId: message.reqId, value: message.headers });
      hook({ url: message.url, responseHeaders: message.headers }, (result) => send({ t: 'reply-to-test', reqId: message.reqId, value: result.responseHeaders ?? message.headers }));
      return;
    }
    case 'menu.role': {
      // a standard role's menu item, clicked: Electron runs the role's action on the focused window's contents
      const win = [...windows].at(-1);
      const action = { copy: 'copy', paste: 'paste', cut: 'cut', selectAll: 'selectAll' }[message.role];
      if (win && action) win.webContents[action]();
      send({ t: 'reply-to-test', reqId: message.reqId, value: Boolean(win && action) });
      return;
    }
    case 'window.closed-by-person':
      byId.get(message.id)?.close();
      return;
    case 'tray.click': {
      const tray = trays.get(message.id);
      const clicked = message.label === undefined ? tray?._click() : tray?._clickItem(message.label);
      send({ t: 'reply-to-test', reqId: message.reqId, value: clicked === true });
      return;
    }
    case 'notification.click':
      notifications.get(message.id)?.emit('click', new PreventableEvent());
      return;
    case 'app.quit':
      app.quit();
      return;
  }
});
// the test process is Electron itself here: if it goes, so does the app
process.on('disconnect', () => process.exit(0));
