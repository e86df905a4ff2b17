// The preload's isolated world, as Electron sets it up for a sandboxed, context-isolated window (its "Process
// Sandboxing" and "Context Isolation" tutorials): runs in the main frame only (nodeIntegrationInSubFrames is
// off), before the page's scripts; `require` gives only `electron` (its renderer modules), `events`, `timers`
// and `url`, and throws Electron's own "module not found: NAME" for anything else; the preload runs as a
// CommonJS function of (require, module, exports, process, ...). The harness fills in the three placeholders
// (the preload's source, the process facts and the binding's name) and injects this into a named isolated world.
/* eslint-disable */
(function electronPreloadWorld() {
  if (window !== window.top) return;
  const BINDING = __BINDING_NAME__;
  const bridge = harnessBridge('preload', 'main');
  const send = globalThis[BINDING];
  delete globalThis[BINDING];

  // ---- the wire to the main process: structured clone (checked), then a tagged JSON the harness unpacks ----
  function pack(value) {
    if (value === undefined) return { $: 'undef' };
    if (value === null || typeof value !== 'object') return value;
    if (value instanceof Uint8Array) return { $: 'u8', b64: btoa(String.fromCharCode(...value)) };
    if (ArrayBuffer.isView(value)) return pack(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    if (value instanceof ArrayBuffer) return pack(new Uint8Array(value));
    if (value instanceof Date) return { $: 'date', iso: value.toISOString() };
    if (Array.isArray(value)) return value.map(pack);
    const out = {};
    for (const key of Object.keys(value)) out[key] = pack(value[key]);
    return { $: 'obj', v: out };
  }
  function unpack(value) {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(unpack);
    if (value.$ === 'undef') return undefined;
    if (value.$ === 'u8') return Uint8Array.from(atob(value.b64), (c) => c.charCodeAt(0));
    if (value.$ === 'date') return new Date(value.iso);
    const out = {};
    for (const key of Object.keys(value.v)) out[key] = unpack(value.v[key]);
    return out;
  }
  function cloned(args) {
    try {
      return structuredClone(args);
    } catch {
      throw new Error('An object could not be cloned.');
    }
  }

  // ---- ipcRenderer ------------------------------------------------------------------------------------------
  const listeners = new Map();
  const invokes = new Map();
  let nextInvoke = 1;
  function add(channel, listener, once) {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    const list = listeners.get(channel) ?? [];
    list.push({ listener, once });
    listeners.set(channel, list);
    return ipcRenderer;
  }
  function remove(channel, listener) {
    const list = (listeners.get(channel) ?? []).filter((l) => l.listener !== listener);
    listeners.set(channel, list);
    return ipcRenderer;
  }
  const ipcRenderer = {
    send(channel, ...args) {
      send(JSON.stringify({ kind: 'send', channel: String(channel), args: pack(cloned(args)) }));
    },
    invoke(channel, ...args) {
      const id = nextInvoke++;
      const packet = JSON.stringify({ kind: 'invoke', id, channel: String(channel), args: pack(cloned(args)) });
      return new Promise((resolve, reject) => {
        invokes.set(id, { resolve, reject });
        send(packet);
      });
    },
    sendSync() {
      throw new Error('sendSync is not supported by the test harness (the app does not use it)');
    },
    on: (channel, listener) => add(channel, listener, false),
    once: (channel, listener) => add(channel, listener, true),
    addListener: (channel, listener) => add(channel, listener, false),
    off: remove,
    removeListener: remove,
    removeAllListeners(channel) {
      if (channel === undefined) listeners.clear();
      else listeners.delete(channel);
      return ipcRenderer;
    },
  };
  // the harness calls this (Runtime.evaluate in this world) for every message the main process sends
  Object.defineProperty(globalThis, '__electronHarnessDeliver', {
    value(text) {
      const packet = JSON.parse(text);
      if (packet.kind === 'reply') {
        const waiter = invokes.get(packet.id);
        invokes.delete(packet.id);
        if (!waiter) return;
        if (packet.ok) waiter.resolve(unpack(packet.value));
        else waiter.reject(new Error(`Error invoking remote method '${packet.channel}': ${packet.error}`));
        return;
      }
      const event = { sender: ipcRenderer, senderId: 0, ports: [] };
      const args = unpack(packet.args);
      const list = listeners.get(packet.channel) ?? [];
      listeners.set(packet.channel, list.filter((l) => !l.once));
      for (const { listener } of list) {
        try {
          listener(event, ...args);
        } catch (error) {
          console.error(error);
        }
      }
    },
  });

  // ---- contextBridge ----------------------------------------------------------------------------------------
  const exposed = new Map();
  const contextBridge = {
    exposeInMainWorld(key, api) {
      if (typeof key !== 'string') throw new TypeError('apiKey must be a string');
      if (exposed.has(key)) throw new Error('Cannot bind an API on top of an existing property on the window object');
      const wire = bridge.encode(api);
      exposed.set(key, wire);
      bridge.send('expose', { key, value: wire });
    },
    exposeInIsolatedWorld() {
      throw new Error('exposeInIsolatedWorld is not supported by the test harness (the app does not use it)');
    },
  };
  // the main world's side may start after this one: it asks, and everything exposed so far is said again
  bridge.on('ready', () => {
    for (const [key, value] of exposed) bridge.send('expose', { key, value });
  });

  // ---- the sandbox's require --------------------------------------------------------------------------------
  class EventEmitter {
    constructor() {
      this._events = new Map();
    }
    on(name, fn) {
      this._events.set(name, [...(this._events.get(name) ?? []), fn]);
      return this;
    }
    off(name, fn) {
      this._events.set(name, (this._events.get(name) ?? []).filter((f) => f !== fn));
      return this;
    }
    once(name, fn) {
      const wrapped = (...args) => {
        this.off(name, wrapped);
        fn(...args);
      };
      return this.on(name, wrapped);
    }
    emit(name, ...args) {
      const list = this._events.get(name) ?? [];
      for (const fn of list) fn(...args);
      return list.length > 0;
    }
  }
  const modules = {
    electron: {
      contextBridge,
      ipcRenderer,
      webFrame: { getZoomFactor: () => 1, setZoomFactor() {} },
      crashReporter: { addExtraParameter() {}, removeExtraParameter() {}, getParameters: () => ({}) },
      nativeImage: {},
      webUtils: { getPathForFile: () => '' },
    },
    events: { EventEmitter, default: EventEmitter },
    timers: { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate: (fn, ...a) => setTimeout(fn, 0, ...a), clearImmediate: clearTimeout },
    url: { URL, URLSearchParams },
  };
  function preloadRequire(name) {
    if (Object.prototype.hasOwnProperty.call(modules, name)) return modules[name];
    throw new Error(`module not found: ${name}`);
  }
  const processInfo = __PROCESS_INFO__;
  const preloadProcess = Object.assign(new EventEmitter(), processInfo, { sandboxed: true, contextIsolated: true, type: 'renderer' });
  const module = { exports: {} };
  try {
    (function (require, module, exports, process, global, setImmediate, clearImmediate) {
      __PRELOAD_SOURCE__;
    })(preloadRequire, module, module.exports, preloadProcess, globalThis, modules.timers.setImmediate, modules.timers.clearImmediate);
  } catch (error) {
    // Electron reports a preload that throws on the console ("Unable to load preload script") and goes on
    console.error(`Unable to load preload script: ${error && error.message}`);
    send(JSON.stringify({ kind: 'preload-error', message: String(error && error.message) }));
  }
})();
