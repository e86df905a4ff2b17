// A page in Chromium driven over the DevTools protocol with only what a benchmark needs (navigate, evaluate,
// wait for a condition in the page), and none of the instrumentation Playwright turns on. Playwright enables
// the Network domain on every page, and with it Chromium copies every WebSocket frame's payload into a
// protocol event (base64 for binary frames) in the page's renderer, through the browser process, to the
// driver: for the terminal row's 10 MB that is ~13 MB more encoded, sent and parsed on a 2-core machine,
// work the app in Electron never does. The same browser binary and flags as the Playwright-driven rows.
/* global document, location -- the functions passed to evaluate run in the browser */
import { spawn } from 'node:child_process';

export async function launchBarePage(executablePath, flags, { width, height }) {
  const proc = spawn(executablePath, [...flags, '--remote-debugging-pipe', `--window-size=${width},${height}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
  });
  proc.stderr.resume();
  const toBrowser = proc.stdio[3];
  const fromBrowser = proc.stdio[4];
  const pending = new Map();
  let nextId = 1;
  let buffered = '';
  const eventListeners = new Set();
  fromBrowser.setEncoding('utf8');
  fromBrowser.on('data', (text) => {
    buffered += text;
    let end;
    while ((end = buffered.indexOf('\0')) >= 0) {
      const message = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      const waiter = message.id === undefined ? undefined : pending.get(message.id);
      if (message.method) for (const listener of eventListeners) listener(message.method, message.params);
      if (!waiter) continue;
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
      else waiter.resolve(message.result);
    }
  });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject, method });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });

  const { targetInfos } = await send('Target.getTargets');
  const target = targetInfos.find((t) => t.type === 'page');
  if (!target) throw new Error('Chromium opened no page');
  const { sessionId } = await send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
  const page = (method, params) => send(method, params, sessionId);
  await page('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });

  /** Runs `fn(arg)` in the page (an async function is awaited); returns its JSON value. */
  const evaluate = async (fn, arg) => {
    const { result, exceptionDetails } = await page('Runtime.evaluate', {
      expression: `(${fn.toString()})(${JSON.stringify(arg ?? null)})`,
      awaitPromise: true,
      returnByValue: true,
    });
    if (exceptionDetails) throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value;
  };

  return {
    pid: proc.pid,
    /** Any DevTools command on the page's session (a profiler, a trace). */
    cdp: page,
    /** Hears the protocol's events (a trace's data): `listener(method, params)`; returns an unsubscribe. */
    onEvent(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    evaluate,
    async goto(url, timeoutMs = 60_000) {
      await page('Page.navigate', { url });
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const loaded = await evaluate((origin) => location.origin === origin && document.readyState === 'complete', new URL(url).origin).catch(() => false);
        if (loaded) return;
        if (Date.now() > deadline) throw new Error(`${url} did not load in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    /** Polls `predicate(arg)` in the page every `pollMs` until it is truthy (the polling runs in the page). */
    async waitFor(predicate, arg, { timeoutMs = 60_000, pollMs = 50 } = {}) {
      const ok = await evaluate(
        ([source, arg, timeoutMs, pollMs]) =>
          new Promise((resolve) => {
            const test = (0, eval)(`(${source})`);
            const deadline = Date.now() + timeoutMs;
            const tick = () => {
              let value = false;
              try {
                value = test(arg);
              } catch {
                // not there yet
              }
              if (value) resolve(true);
              else if (Date.now() > deadline) resolve(false);
              else setTimeout(tick, pollMs);
            };
            tick();
          }),
        [predicate.toString(), arg ?? null, timeoutMs, pollMs],
      );
      if (!ok) throw new Error(`timed out after ${timeoutMs} ms waiting for ${predicate.toString().slice(0, 120)}`);
    },
    async close() {
      proc.kill();
      await exited;
    },
  };
}
