#!/usr/bin/env node
// The floor of the ui benchmark's terminal row: xterm.js alone (its DOM renderer, as the app uses without a
// hardware GPU) in the same headless Chromium, fed the same 10 MB (BENCH_UI_MB) of 100-column lines from
// memory in 64 KiB writes, each acknowledged by its write callback, until the last is parsed and a frame
// drawn. No socket, no base64, no room: what drawing that much text costs the page by itself.
// With --app-like, the terminal is made as the app makes it (its addons, font, blinking cursor), to see what
// those cost; with --trace, a performance trace of the last round; with --profile, its JS profile. usage: node bench/investigations/xterm-floor.js [CHUNK_KIB] [--app-like] [--trace] [--profile]
/* global document, TextEncoder, performance, requestAnimationFrame -- page.evaluate's function runs in the browser */
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../benchmarks/ui.js';
import { cpuOfTree, cpuSince, summarize, summarizeTrace, TRACE_CATEGORIES } from '../lib/profiles.js';
import { REPO } from '../lib/room.js';

const bytes = Number(process.env.BENCH_UI_MB ?? 10) * 1_000_000;
const appLike = process.argv.includes('--app-like');
const chunk = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 64) * 1024;
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.setContent('<div id="t" style="position:absolute;left:440px;top:57px;width:830px;height:740px"></div>');
  await page.addStyleTag({ path: path.join(REPO, 'node_modules/@xterm/xterm/css/xterm.css') });
  await page.addScriptTag({ path: path.join(REPO, 'node_modules/@xterm/xterm/lib/xterm.js') });
  for (const addon of ['unicode11', 'search', 'web-links']) await page.addScriptTag({ path: path.join(REPO, `node_modules/@xterm/addon-${addon}/lib/addon-${addon}.js`) });
  const trace = process.argv.includes('--trace');
  const jsProfile = process.argv.includes('--profile');
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const tracingDone = new Promise((resolve) => cdp.on('Tracing.tracingComplete', resolve));
  for (let round = 0; round < 3; round++) {
    if (trace && round === 2) await cdp.send('Tracing.start', { traceConfig: { includedCategories: TRACE_CATEGORIES }, transferMode: 'ReportEvents' });
    if (jsProfile && round === 2) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await cdp.send('Profiler.start');
    }
    const cpu = cpuOfTree(process.pid);
    const ms = await page.evaluate(
      ([bytes, chunk, appLike]) =>
        new Promise((resolve) => {
          document.getElementById('t').replaceChildren();
          const options = { scrollback: 10_000, fontSize: 13, cols: 105, rows: 48 };
          if (appLike) Object.assign(options, { allowProposedApi: true, cursorBlink: true, fontFamily: "'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace" });
          const term = new globalThis.Terminal(options);
          if (appLike) {
            term.loadAddon(new globalThis.SearchAddon.SearchAddon());
            term.loadAddon(new globalThis.WebLinksAddon.WebLinksAddon());
            term.loadAddon(new globalThis.Unicode11Addon.Unicode11Addon());
            term.unicode.activeVersion = '11';
          }
          term.open(document.getElementById('t'));
          const line = new TextEncoder().encode(`${'y'.repeat(100)}\r\n`);
          const block = new Uint8Array(chunk);
          for (let i = 0; i < chunk; i++) block[i] = line[i % line.length];
          const t = performance.now();
          let sent = 0;
          let acked = 0;
          // the app's window: up to 512 KiB written and not yet acknowledged
          const pump = () => {
            while (sent < bytes && sent - acked < 512 * 1024) {
              const n = Math.min(chunk, bytes - sent);
              sent += n;
              term.write(block.subarray(0, n), () => {
                acked += n;
                if (acked >= bytes) requestAnimationFrame(() => resolve(performance.now() - t));
                else pump();
              });
            }
          };
          pump();
        }),
      [bytes, chunk, appLike],
    );
    console.log(`xterm.js alone: ${bytes / 1e6} MB in ${ms.toFixed(0)} ms (${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s), ${chunk / 1024} KiB writes${appLike ? ', made as the app makes it' : ''}; CPU ms: ${JSON.stringify(cpuSince(cpu, cpuOfTree(process.pid)))}`);
  }
  if (jsProfile) summarize('xterm.js alone, last round (page main thread)', (await cdp.send('Profiler.stop')).profile, 20);
  if (trace) {
    await cdp.send('Tracing.end');
    await tracingDone;
    summarizeTrace(events, 20);
  }
} finally {
  await browser.close();
}
