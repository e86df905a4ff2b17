#!/usr/bin/env node
// Where the time of the `ui` benchmark goes, on both sides: the room process under --cpu-prof and the page
// under Chromium's CDP Profiler, while the page draws a 25×40 lattice (`graph`) or shows BENCH_UI_MB (10) MB
// through a live terminal (`terminal`). Prints the self time by function (top N) of each.
// With --trace, a performance trace of the page instead of its JS profile: time by trace event (layout,
// style, paint, script…) on the renderer's main thread, which is where the JS profile's "(program)" goes.
// usage: node bench/profile-ui.js graph|terminal [N] [--trace]
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS, SHELL_ENV, drawGraph, lattice, viewStream } from './benchmarks/ui.js';
import { callTool, closeAll, connect } from './lib/clients.js';
import { makeHome, startRoom } from './lib/room.js';

const args = process.argv.slice(2);
const trace = args.includes('--trace');
const [what, top = '25'] = args.filter((a) => a !== '--trace');
if (what !== 'graph' && what !== 'terminal') {
  console.error('usage: node bench/profile-ui.js graph|terminal [TOP]');
  process.exit(2);
}

function summarize(label, profile, n) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const dt = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const f = byId.get(profile.samples[i]).callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url).slice(0, 40)}:${f.lineNumber + 1}:${f.columnNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = self.get('(idle)') ?? 0;
  console.log(`\n${label}: ${(total / 1000).toFixed(0)} ms profiled, idle ${((idle / total) * 100).toFixed(0)}%, busy ${((total - idle) / 1000).toFixed(0)} ms`);
  for (const [key, us] of [...self].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`${((us / (total - idle)) * 100).toFixed(1).padStart(5)}% of busy  ${key}`);
  }
}

/** Self time of complete trace events on the busiest thread (the renderer's main thread), by name. */
function summarizeTrace(events, n) {
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || typeof e.dur !== 'number') continue;
    const key = `${e.pid}:${e.tid}`;
    if (!byThread.has(key)) byThread.set(key, []);
    byThread.get(key).push(e);
  }
  const threads = [...byThread].map(([key, list]) => [key, list, list.reduce((a, e) => a + e.dur, 0)]).sort((a, b) => b[2] - a[2]);
  for (const [key, list] of threads.slice(0, 2)) {
    // self time: an event's duration minus that of the events nested directly inside it
    list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const self = new Map();
    const stack = [];
    for (const e of list) {
      while (stack.length > 0 && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
      const parent = stack.at(-1);
      if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - e.dur);
      self.set(e.name, (self.get(e.name) ?? 0) + e.dur);
      stack.push(e);
    }
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    console.log(`\ntrace thread ${key}: ${(total / 1000).toFixed(0)} ms in events`);
    for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
}

const home = makeHome('profile-ui');
const dir = path.join(home.root, 'prof');
home.nodeArgs = ['--cpu-prof', '--cpu-prof-dir', dir];
const room = await startRoom(home);
const uiUrl = /open the UI:\s+(\S+)/.exec(room.output())?.[1];
const client = await connect('2026', room.url, room.token);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
let pageProfile;
let pageTrace;
const graphIds = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(uiUrl);
  await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const tracingDone = new Promise((resolve) => cdp.on('Tracing.tracingComplete', resolve));
  const start = () =>
    trace
      ? cdp.send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'v8'] }, transferMode: 'ReportEvents' })
      : cdp.send('Profiler.start');
  if (what === 'graph') {
    const submit = async (name, stages) => {
      const { graphId } = await callTool(client, 'tasks_run', { name, maxParallel: 1, stages: stages.map((s) => ({ id: s.id, command: ['sleep', '600'], dependsOn: s.dependsOn })) });
      graphIds.push(graphId);
      return graphId;
    };
    const smallId = await submit('small', lattice(2, 2));
    const bigId = await submit('lattice 25×40', lattice(25, 40));
    await page.getByRole('button', { name: /Graphs/ }).click();
    await page.locator(`.graph-row[data-graph-id="${bigId}"]`).waitFor();
    await page.locator(`.graph-row[data-graph-id="${smallId}"]`).click();
    await page.locator('.react-flow__node').first().waitFor();
    await start();
    console.log(`graph drawn in ${(await drawGraph(page, smallId, bigId)).toFixed(0)} ms`);
  } else {
    const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV, name: 'profile stream' });
    await page.getByRole('button', { name: /Terminals/ }).click();
    await page.locator(`.shell-item[data-shell-id="${shell.id}"]`).click();
    await page.waitForFunction((id) => globalThis.commonroomInspect?.terminalText(id, 5) !== null, shell.id);
    await start();
    const bytes = Number(process.env.BENCH_UI_MB ?? 10) * 1_000_000;
    const ms = await viewStream(page, client, shell.id, bytes);
    console.log(`terminal showed ${bytes / 1e6} MB in ${ms.toFixed(0)} ms (${((bytes / 1e6) / (ms / 1000)).toFixed(1)} MB/s)`);
  }
  if (trace) {
    await cdp.send('Tracing.end');
    await tracingDone;
    pageTrace = events;
  } else {
    pageProfile = (await cdp.send('Profiler.stop')).profile;
  }
} finally {
  for (const graphId of graphIds) await callTool(client, 'tasks_cancel', { graphId }).catch(() => undefined);
  await browser.close();
  await closeAll([client]);
  await room.stop();
}
if (pageTrace) summarizeTrace(pageTrace, Number(top));
else summarize('page (Chromium renderer, main thread)', pageProfile, Number(top));
const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
summarize('room process (whole run, including start)', JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), Number(top));
home.cleanup();
