#!/usr/bin/env node
// Where the time of the `ui` benchmark goes, on both sides: the room process under --cpu-prof and the page
// under Chromium's CDP Profiler, while the page draws a 25×40 lattice (`graph`) or shows BENCH_UI_MB (10) MB
// through a live terminal (`terminal`). Prints the self time by function (top N) of each.
// With --trace, a performance trace of the page instead of its JS profile: time by trace event (layout,
// style, paint, script…) on the renderer's main thread, which is where the JS profile's "(program)" goes.
// With --cpu-only, neither: the CPU time each process used (from /proc), which a loaded machine does not skew.
// usage: node bench/investigations/profile-ui.js graph|terminal [N] [--trace|--cpu-only]
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS, SHELL_ENV, drawGraph, lattice, viewStream } from '../benchmarks/ui.js';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { cpuOfTree, cpuSince, summarize, summarizeTrace, TRACE_CATEGORIES } from '../lib/profiles.js';
import { makeHome, startRoom } from '../lib/room.js';

const args = process.argv.slice(2);
const trace = args.includes('--trace');
const quiet = args.includes('--cpu-only'); // no profiler or trace: only the CPU time each process used
const [what, top = '25'] = args.filter((a) => !a.startsWith('--'));
if (what !== 'graph' && what !== 'terminal') {
  console.error('usage: node bench/investigations/profile-ui.js graph|terminal [TOP]');
  process.exit(2);
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
    quiet
      ? Promise.resolve()
      : trace
      ? cdp.send('Tracing.start', { traceConfig: { includedCategories: TRACE_CATEGORIES }, transferMode: 'ReportEvents' })
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
    // the list may have opened the big one first: its layout runs in the same worker, ahead of the small one's
    await page.locator('.react-flow__node').first().waitFor({ timeout: 300_000 });
    await start();
    console.log(`graph drawn in ${(await drawGraph(page, smallId, bigId)).toFixed(0)} ms`);
  } else {
    const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV, name: 'profile stream' });
    await page.getByRole('button', { name: /Terminals/ }).click();
    await page.locator(`.shell-item[data-shell-id="${shell.id}"]`).click();
    await page.waitForFunction((id) => globalThis.commonroomInspect?.terminalText(id, 5) !== null, shell.id);
    await start();
    const bytes = Number(process.env.BENCH_UI_MB ?? 10) * 1_000_000;
    const cpu = [cpuOfTree(process.pid), cpuOfTree(room.pid)];
    const ms = await viewStream(page, client, shell.id, bytes);
    const used = { ...cpuSince(cpu[0], cpuOfTree(process.pid)), room: Object.values(cpuSince(cpu[1], cpuOfTree(room.pid))).reduce((a, b) => a + b, 0) };
    console.log(`terminal showed ${bytes / 1e6} MB in ${ms.toFixed(0)} ms (${((bytes / 1e6) / (ms / 1000)).toFixed(1)} MB/s); CPU ms used meanwhile: ${JSON.stringify(used)}`);
  }
  if (quiet) {
    // nothing was recorded
  } else if (trace) {
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
else if (pageProfile) summarize('page (Chromium renderer, main thread)', pageProfile, Number(top));
const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
summarize('room process (whole run, including start)', JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), Number(top));
home.cleanup();
