// One side of Electron's contextBridge, as the harness runs it in a real Chromium page: the preload's isolated
// world and the page's main world each run this, and values cross between them the way Electron's
// contextBridge carries them (its API docs, "API" and "Parameter / Error / Return Type support"):
//   - functions are proxied: calling one in the other world runs it in its own world, synchronously, with its
//     arguments and return value carried the same way;
//   - a Promise is proxied only as a return value or an exact parameter; nested in an object it is dropped;
//   - Errors are copied as a new Error with the same message (custom properties are lost);
//   - objects and arrays are copied key by key, their prototype dropped (a class instance arrives as a plain
//     object), and frozen on arrival; symbols are dropped;
//   - everything else (typed arrays, ArrayBuffer, Date, RegExp, Map, Set, Blob) is structured-cloned.
// The crossing itself is a synchronous DOM event whose `detail` Chromium structured-clones between worlds.
// Plain JavaScript, injected as text (not a module): `harnessBridge(self, other)` is called by the world's script.
/* eslint-disable */
function harnessBridge(self, other) {
  const FN = '__harness_fn__';
  const PROMISE = '__harness_promise__';
  const ERR = '__harness_error__';
  const functions = new Map();
  const registered = new WeakMap();
  const promises = new Map();
  const returns = new Map();
  let nextId = 1;
  const name = (kind, world) => `__electron_harness:${kind}:${world}`;

  function register(fn) {
    let id = registered.get(fn);
    if (id === undefined) {
      id = `${self}-${nextId++}`;
      registered.set(fn, id);
      functions.set(id, fn);
    }
    return id;
  }

  function cloneable(value) {
    return (
      value instanceof ArrayBuffer ||
      ArrayBuffer.isView(value) ||
      value instanceof Date ||
      value instanceof RegExp ||
      value instanceof Map ||
      value instanceof Set ||
      (typeof Blob !== 'undefined' && value instanceof Blob)
    );
  }

  function encode(value, top, depth) {
    if (depth > 1000) throw new Error('object nested too deeply to cross the context bridge');
    if (value === null || value === undefined) return value;
    const type = typeof value;
    if (type === 'symbol') return undefined;
    if (type === 'function') return { [FN]: register(value) };
    if (type !== 'object') return value;
    if (value instanceof Promise) {
      if (!top) return undefined;
      const id = `${self}-p${nextId++}`;
      value.then(
        (v) => send('settle', { id, ok: true, value: encode(v, true, 0) }),
        (e) => send('settle', { id, ok: false, value: encode(e instanceof Error ? e : new Error(String(e)), true, 0) }),
      );
      return { [PROMISE]: id };
    }
    if (value instanceof Error) return { [ERR]: { message: String(value.message), name: String(value.name) } };
    if (cloneable(value)) return value;
    if (Array.isArray(value)) return value.map((v) => encode(v, false, depth + 1));
    const out = {};
    for (const key of Object.keys(value)) out[key] = encode(value[key], false, depth + 1);
    return out;
  }

  function decode(wire) {
    if (wire === null || typeof wire !== 'object' || cloneable(wire)) return wire;
    if (Array.isArray(wire)) return Object.freeze(wire.map(decode));
    if (typeof wire[FN] === 'string') return proxy(wire[FN]);
    if (typeof wire[PROMISE] === 'string') {
      return new Promise((resolve, reject) => promises.set(wire[PROMISE], { resolve, reject }));
    }
    if (wire[ERR]) {
      const error = new Error(wire[ERR].message);
      return error;
    }
    const out = {};
    for (const key of Object.keys(wire)) out[key] = decode(wire[key]);
    return Object.freeze(out);
  }

  function send(kind, detail) {
    window.dispatchEvent(new CustomEvent(name(kind, other), { detail }));
  }

  function proxy(id) {
    return function bridged(...args) {
      const callId = `${self}-c${nextId++}`;
      send('call', { callId, id, args: args.map((a) => encode(a, true, 0)) });
      if (!returns.has(callId)) throw new Error('the context bridge got no answer (the other world is gone)');
      const answer = returns.get(callId);
      returns.delete(callId);
      if (!answer.ok) throw decode(answer.value);
      return decode(answer.value);
    };
  }

  window.addEventListener(name('call', self), (event) => {
    const { callId, id, args } = event.detail;
    const fn = functions.get(id);
    let answer;
    try {
      if (!fn) throw new Error('the context bridge lost this function');
      answer = { callId, ok: true, value: encode(fn(...args.map(decode)), true, 0) };
    } catch (error) {
      answer = { callId, ok: false, value: encode(error instanceof Error ? error : new Error(String(error)), true, 0) };
    }
    send('return', answer);
  });
  window.addEventListener(name('return', self), (event) => returns.set(event.detail.callId, event.detail));
  window.addEventListener(name('settle', self), (event) => {
    const waiter = promises.get(event.detail.id);
    promises.delete(event.detail.id);
    if (!waiter) return;
    const value = decode(event.detail.value);
    if (event.detail.ok) waiter.resolve(value);
    else waiter.reject(value);
  });

  return { encode: (v) => encode(v, true, 0), decode, send, on: (kind, fn) => window.addEventListener(name(kind, self), (e) => fn(e.detail)) };
}
