#!/usr/bin/env node
// A/B of the ui benchmark's terminal row: each side is a room (a build of the CLI) with its own page showing its
// own shell, driven by Playwright or over the bare DevTools pipe (bench/lib/bare-page.js); the sides' rounds
// alternate (the order rotates), and each round reports the wall time until the end marker shows and the CPU
// time each process used meanwhile (from /proc, which load does not skew).
// usage: node bench/investigations/ab-ui-terminal.js [ROUNDS] [SIDE...]   SIDE = [LABEL=]HARNESS[@BIN], HARNESS playwright|bare
// e.g.  node bench/investigations/ab-ui-terminal.js 4 pw=playwright bare=bare
//       node bench/investigations/ab-ui-terminal.js 4 before=bare@.tmp/before/out/main/commonroom.js after=bare
// (a build elsewhere serves its own renderer only beside a package.json: copy package.json to .tmp/before/ and
// out/ to .tmp/before/out/). AB_PROFILE=LABEL: the page's JS profile of that (bare) side's last round;
// AB_TRACE=LABEL: a performance trace of it instead (time by trace event); AB_SHOTS=DIR: a screenshot of each
// bare side's page after its last round.
/* global document, requestAnimationFrame -- the functions passed to evaluate run in the browser */
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS, SHELL_ENV, rawStream, viewStream } from '../benchmarks/ui.js';
import { launchBarePage } from '../lib/bare-page.js';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { cpuOfTree, cpuSince, summarize, summarizeTrace, TRACE_CATEGORIES } from '../lib/profiles.js';
import { makeHome, startRoom } from '../lib/room.js';
import { median } from '../lib/stats.js';

const args = process.argv.slice(2);
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 4);
const specs = args.filter((a) => !/^\d+$/.test(a));
if (specs.length === 0) specs.push('playwright', 'bare');
const bytes = Number(process.env.BENCH_UI_MB ?? 10) * 1_000_000;
const viewport = { width: 1280, height: 800 };

const sides = [];
try {
  for (const spec of specs) {
    const [, label, harness, bin] = /^(?:([^=]+)=)?(playwright|bare)(?:@(.+))?$/.exec(spec) ?? [];
    if (!harness) throw new Error(`not a side: ${spec} (want [LABEL=]playwright|bare[@BIN])`);
    const home = makeHome('ab-ui-terminal');
    if (bin) home.bin = path.resolve(bin);
    const room = await startRoom(home);
    const uiUrl = /open the UI:\s+(\S+)/.exec(room.output())?.[1];
    const client = await connect('2026', room.url, room.token);
    const side = { label: label ?? spec, home, room, client, walls: [], cpus: [] };
    sides.push(side);
    if (harness === 'playwright') {
      side.browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
      const page = await side.browser.newPage({ viewport });
      await page.goto(uiUrl);
      side.page = page;
      side.close = () => side.browser.close();
    } else {
      const bare = await launchBarePage(CHROMIUM, CHROMIUM_FLAGS, viewport);
      await bare.goto(uiUrl);
      side.page = playwrightLike(bare);
      side.cdp = bare.cdp;
      side.onEvent = bare.onEvent;
      side.close = () => bare.close();
    }
    await side.page.waitForFunction(() => /connected/.test(document.querySelector('[data-testid="link-state"]')?.textContent ?? ''));
    const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV, name: `ab ${side.label}` });
    side.shellId = shell.id;
    await side.page.evaluate(() => [...document.querySelectorAll('button')].find((b) => /Terminals/.test(b.textContent))?.click());
    await side.page.waitForFunction((id) => document.querySelector(`.shell-item[data-shell-id="${id}"]`), shell.id);
    await side.page.evaluate((id) => document.querySelector(`.shell-item[data-shell-id="${id}"]`).click(), shell.id);
    await side.page.waitForFunction((id) => globalThis.commonroomInspect?.terminalText(id, 5) != null, shell.id);
  }
  const raw = { label: 'raw node-pty', walls: [], cpus: [] };
  for (let round = 0; round < rounds; round++) {
    // the benchmark's baseline in the same rounds: node-pty in this process reading the same command
    const before = cpuOfTree(process.pid);
    raw.walls.push(await rawStream(bytes));
    raw.cpus.push(cpuSince(before, cpuOfTree(process.pid)));
    console.log(`round ${round + 1} raw node-pty: ${raw.walls.at(-1).toFixed(0)} ms CPU ${JSON.stringify(raw.cpus.at(-1))}`);
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(round + k) % sides.length];
      const before = [cpuOfTree(process.pid), cpuOfTree(side.room.pid)];
      const profiling = process.env.AB_PROFILE === side.label && round === rounds - 1 && side.cdp;
      const tracing = process.env.AB_TRACE === side.label && round === rounds - 1 && side.cdp;
      const traceEvents = [];
      let traceDone;
      if (tracing) {
        traceDone = new Promise((resolve) => {
          side.onEvent((method, params) => {
            if (method === 'Tracing.dataCollected') traceEvents.push(...params.value);
            if (method === 'Tracing.tracingComplete') resolve();
          });
        });
        await side.cdp('Tracing.start', { traceConfig: { includedCategories: TRACE_CATEGORIES }, transferMode: 'ReportEvents' });
      }
      if (profiling) {
        await side.cdp('Profiler.enable');
        await side.cdp('Profiler.setSamplingInterval', { interval: 500 });
        await side.cdp('Profiler.start');
      }
      const ms = await viewStream(side.page, side.client, side.shellId, bytes);
      if (profiling) side.profile = (await side.cdp('Profiler.stop')).profile;
      if (tracing) {
        await side.cdp('Tracing.end');
        await traceDone;
        side.trace = traceEvents;
      }
      if (process.env.AB_SHOTS && round === rounds - 1 && side.cdp) {
        // the screen as the flood left it, to look at (the text must end with the marker line and a prompt)
        await side.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
        const { data } = await side.cdp('Page.captureScreenshot', { format: 'png' });
        const file = path.join(process.env.AB_SHOTS, `ui-terminal-flood-${side.label}.png`);
        fs.mkdirSync(process.env.AB_SHOTS, { recursive: true });
        fs.writeFileSync(file, Buffer.from(data, 'base64'));
        console.log(`screenshot: ${file}`);
      }
      const cpu = cpuSince(before[0], cpuOfTree(process.pid));
      cpu.room = Object.values(cpuSince(before[1], cpuOfTree(side.room.pid))).reduce((a, b) => a + b, 0);
      side.walls.push(ms);
      side.cpus.push(cpu);
      console.log(`round ${round + 1} ${side.label}: ${ms.toFixed(0)} ms (${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s) CPU ${JSON.stringify(cpu)}`);
    }
  }
  for (const side of [raw, ...sides]) {
    const kinds = Object.keys(side.cpus[0] ?? {});
    const cpu = Object.fromEntries(kinds.map((k) => [k, median(side.cpus.map((c) => c[k] ?? 0))]));
    const ratio = side === raw ? '' : ` ${(median(raw.walls) / median(side.walls)).toFixed(2)}× raw,`;
    console.log(`${side.label}: median ${median(side.walls).toFixed(0)} ms (${(bytes / 1e6 / (median(side.walls) / 1000)).toFixed(1)} MB/s),${ratio} rounds ${side.walls.map((w) => w.toFixed(0)).join(' ')}; median CPU ${JSON.stringify(cpu)}`);
  }
  for (const side of sides) if (side.profile) summarize(`${side.label}, last round (page main thread)`, side.profile, Number(process.env.AB_TOP ?? 25));
  for (const side of sides) if (side.trace) summarizeTrace(side.trace, Number(process.env.AB_TOP ?? 25));
} finally {
  for (const side of sides) {
    await side.close?.().catch(() => undefined);
    await closeAll([side.client]);
    await side.room.stop();
    side.home.cleanup();
  }
}

/** The two calls viewStream makes, on a bare page. */
function playwrightLike(bare) {
  return {
    evaluate: (fn, arg) => bare.evaluate(fn, arg),
    waitForFunction: (fn, arg, options) => bare.waitFor(fn, arg, { timeoutMs: options?.timeout ?? 60_000, pollMs: options?.polling ?? 50 }),
  };
}
