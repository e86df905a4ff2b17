// ui: the person's view in real Chromium against `commonroom serve`.
//  - graph view: from clicking a 1,000-stage graph (25×40 lattice) in the list until its nodes are on the
//    canvas (ELK layout in its worker, React Flow's first paint), against the same browser drawing 1,000
//    positioned boxes and their edges as plain DOM + SVG (the floor of putting that many things on screen);
//    then the same for the largest graph the room accepts, 10,000 stages (250×40, laid out without ELK).
//  - terminal view: a command writes V bytes through a shell the page shows live (the UI door's viewer with
//    flow control: the PTY is paused rather than bytes dropped), until the terminal shows the end marker,
//    against raw node-pty in this process reading the same command's output, and against its floor: a page with
//    nothing but xterm.js (made as the app makes it) in the same browser, fed over a loopback WebSocket by
//    bench/lib/bare-relay.js (raw node-pty, the room's frames and flow control), timed the same way.
/* global document, requestAnimationFrame -- the functions passed to page.evaluate run in the browser */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as pty from 'node-pty';
import { chromium } from 'playwright-core';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { makeHome, startRoom } from '../lib/room.js';
import { BARE_RELAY, startBare } from '../lib/bare.js';
import { alternate, fmt, fmtMs, median, spreadPct } from '../lib/stats.js';

const MiB = 2 ** 20;
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
export const SHELL_ENV = { PS1: '$ ', TERM: 'xterm-256color', PATH: process.env.PATH ?? '/usr/bin:/bin' };
// lines of 100 `y`, so the terminal has real rows to draw (not one endless wrapped line); each run ends with
// its own marker, on a line of its own (after the last line of `y`, which has no newline, it would wrap at
// the terminal's width), since the previous run's may still be on the screen while the page catches up
let runs = 0;
const produce = (bytes, marker = `END${++runs}`) => `head -c ${bytes} /dev/zero | tr '\\0' y | fold -w 100; printf '\\nBENCH%s\\n' ${marker}`;

export function lattice(rows, cols) {
  const stages = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const dependsOn = [];
      if (r > 0) dependsOn.push(`s${r - 1}_${c}`);
      if (c > 0) dependsOn.push(`s${r}_${c - 1}`);
      stages.push({ id: `s${r}_${c}`, dependsOn });
    }
  }
  return stages;
}

/** The floor: the same number of positioned boxes with labels and their edges, drawn as plain DOM + SVG. */
async function bareDraw(page, rows, cols) {
  return page.evaluate(
    ([rows, cols]) =>
      new Promise((resolve) => {
        const t = performance.now();
        const host = document.createElement('div');
        host.style.cssText = 'position:fixed;inset:0;overflow:hidden;background:#fff;z-index:99999';
        const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
        svg.setAttribute('width', String(cols * 200));
        svg.setAttribute('height', String(rows * 80));
        svg.style.cssText = 'position:absolute;left:0;top:0';
        for (let r = 0; r < rows; r++) {
          for (let c = 0; c < cols; c++) {
            const box = document.createElement('div');
            box.textContent = `s${r}_${c} pending`;
            box.style.cssText = `position:absolute;left:${c * 200}px;top:${r * 80}px;width:160px;height:44px;border:1px solid #999;border-radius:6px;font:12px sans-serif`;
            host.appendChild(box);
            for (const [dr, dc] of [[-1, 0], [0, -1]]) {
              if (r + dr < 0 || c + dc < 0) continue;
              const line = document.createElementNS('http://www.w3.org/2000/svg', 'path');
              line.setAttribute('d', `M${(c + dc) * 200 + 80},${(r + dr) * 80 + 44} L${c * 200 + 80},${r * 80}`);
              line.setAttribute('stroke', '#999');
              svg.appendChild(line);
            }
          }
        }
        host.appendChild(svg);
        document.body.appendChild(host);
        host.getBoundingClientRect();
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            const ms = performance.now() - t;
            host.remove();
            resolve(ms);
          }),
        );
      }),
    [rows, cols],
  );
}

/** Click the small graph, then the big one, and time until the big one's nodes are painted. */
export async function drawGraph(page, smallId, bigId) {
  await page.locator(`.graph-row[data-graph-id="${smallId}"]`).click();
  await page.locator('.react-flow__node').first().waitFor();
  const t = performance.now();
  await page.locator(`.graph-row[data-graph-id="${bigId}"]`).click();
  await page.waitForFunction((id) => {
    const dag = document.querySelector('[data-testid="graph-dag"]');
    return dag && document.querySelector('.graph-row.active')?.getAttribute('data-graph-id') === id && dag.querySelectorAll('.react-flow__node').length > 0;
  }, bigId, { timeout: 120_000, polling: 'raf' });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  return performance.now() - t;
}

export async function rawStream(bytes) {
  const t = performance.now();
  const term = pty.spawn('/bin/sh', ['-c', produce(bytes)], { cols: 120, rows: 32, env: SHELL_ENV, encoding: null });
  term.onData(() => undefined);
  await new Promise((resolve) => term.onExit(resolve));
  return performance.now() - t;
}

/** Sends the command through MCP while the page shows the shell; time until the terminal shows the marker. */
export async function viewStream(page, client, shellId, bytes) {
  await callTool(client, 'shell_io', { shellId, text: 'clear\n', wait: { until: 'idle', idleMs: 200 } });
  // the page has drawn everything before (the screen is clear), so no earlier backlog is timed
  await page.waitForFunction((id) => !/y{50}/.test(globalThis.commonroomInspect?.terminalText(id, 5) ?? 'y'.repeat(50)), shellId, { timeout: 600_000, polling: 50 });
  const t = performance.now();
  const marker = `END${++runs}`;
  await callTool(client, 'shell_io', { shellId, text: `${produce(bytes, marker)}\n` });
  await page.waitForFunction(
    ([id, end]) => (globalThis.commonroomInspect?.terminalText(id, 5) ?? '').includes(end),
    [shellId, `BENCH${marker}`],
    { timeout: 600_000, polling: 50 },
  );
  return performance.now() - t;
}

/** The floor page (bare-relay.js at `/`): the same command typed into its shell, timed until its terminal shows the marker. */
async function floorStream(page, bytes) {
  await page.evaluate(() => globalThis.floor.type('clear\n'));
  // cleared (with its scrollback): the screen is the prompt and nothing of the last run
  await page.waitForFunction(() => !/y{50}/.test(globalThis.floor.text(200)) && globalThis.floor.text(200).includes('$'), undefined, { timeout: 600_000, polling: 50 });
  const t = performance.now();
  const marker = `END${++runs}`;
  await page.evaluate((text) => globalThis.floor.type(text), `${produce(bytes, marker)}\n`);
  await page.waitForFunction((end) => globalThis.floor.text(5).includes(end), `BENCH${marker}`, { timeout: 600_000, polling: 50 });
  return performance.now() - t;
}

export default {
  name: 'ui',
  async run({ smoke, log }) {
    if (!fs.existsSync(CHROMIUM)) {
      return [{ name: 'ui', ours: 'not measured', baseline: '', ratio: '', goal: '', met: null, figures: { why: `${CHROMIUM} is missing (apt-get install -y chromium)` } }];
    }
    const [rows, cols] = smoke ? [6, 10] : [25, 40];
    // the 50 MB (BENCH_UI_MB=50) takes minutes per round on a loaded 2-core box; 10 MB keeps the suite in budget
    const bytes = smoke ? MiB : Number(process.env.BENCH_UI_MB ?? 10) * 1_000_000;
    const rounds = smoke ? 1 : 2;
    const home = makeHome('ui');
    const room = await startRoom(home);
    const uiUrl = /open the UI:\s+(\S+)/.exec(room.output())?.[1];
    const client = await connect('2026', room.url, room.token);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    const graphIds = [];
    try {
      if (!uiUrl) throw new Error(`the serve banner names no UI address:\n${room.output()}`);
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(uiUrl);
      await page.getByTestId('link-state').filter({ hasText: 'connected' }).waitFor();

      // stages that wait, so the graphs stay as submitted while they are drawn (one runs; cancelled at the end)
      const submit = async (name, stages) => {
        const { graphId } = await callTool(client, 'tasks_run', {
          name,
          maxParallel: 1,
          stages: stages.map((s) => ({ id: s.id, command: ['sleep', '600'], dependsOn: s.dependsOn })),
        });
        graphIds.push(graphId);
        return graphId;
      };
      const smallId = await submit('small', lattice(2, 2));
      const bigId = await submit(`lattice ${rows}×${cols}`, lattice(rows, cols));
      const [hugeRows, hugeCols] = smoke ? [10, 30] : [250, 40];
      const hugeId = await submit(`lattice ${hugeRows}×${hugeCols}`, lattice(hugeRows, hugeCols));
      await page.getByRole('button', { name: /Graphs/ }).click();
      /** One graph drawn by the app against the same number of plain DOM boxes, alternating. */
      const drawn = async (graphId, r, c) => {
        await page.locator(`.graph-row[data-graph-id="${graphId}"]`).waitFor();
        const timed = await alternate(
          rounds,
          () => drawGraph(page, smallId, graphId),
          () => bareDraw(page, r, c),
        );
        log(`graph view ${r * c} stages: ${fmtMs(median(timed.ours))} (bare DOM ${fmtMs(median(timed.baseline))})`);
        return { rounds: timed, ms: median(timed.ours), bareMs: median(timed.baseline) };
      };
      const graph = await drawn(bigId, rows, cols);
      const { ms: drawMs, bareMs } = graph;
      const huge = await drawn(hugeId, hugeRows, hugeCols);
      const { ms: hugeMs, bareMs: hugeBareMs } = huge;

      const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV, name: 'bench stream' });
      await page.getByRole('button', { name: /Terminals/ }).click();
      await page.locator(`.shell-item[data-shell-id="${shell.id}"]`).click();
      await page.waitForFunction((id) => globalThis.commonroomInspect?.terminalText(id, 5) !== null, shell.id);
      const relay = await startBare({ script: BARE_RELAY });
      let stream;
      try {
        const floorPage = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        await floorPage.goto(new URL('/', relay.url).href);
        await floorPage.waitForFunction(() => (globalThis.floor?.text(200) ?? '').includes('$'), undefined, { timeout: 30_000 });
        await floorStream(floorPage, Math.min(bytes, MiB)); // its warm-up
        await page.bringToFront();
        stream = await alternate(
          rounds,
          () => viewStream(page, client, shell.id, bytes),
          async () => {
            const raw = await rawStream(bytes);
            await floorPage.bringToFront();
            const floor = await floorStream(floorPage, bytes);
            await page.bringToFront();
            return { raw, floor };
          },
        );
        await floorPage.close();
      } finally {
        await relay.stop();
      }
      await callTool(client, 'shell_close', { shellId: shell.id });
      const viewMs = median(stream.ours);
      const rawMs = median(stream.baseline.map((x) => x.raw));
      const floorMs = median(stream.baseline.map((x) => x.floor));
      const mb = bytes / 1_000_000;
      const ratio = rawMs / viewMs;
      log(`terminal view ${mb} MB: ${fmtMs(viewMs)} (raw node-pty ${fmtMs(rawMs)}, xterm.js alone on a bare relay ${fmtMs(floorMs)})`);
      return [
        {
          name: `ui graph view, ${rows * cols}-stage lattice`,
          ours: `${fmtMs(drawMs)} click to painted`,
          baseline: `${fmtMs(bareMs)} plain DOM boxes + SVG edges`,
          ratio: `${fmt(drawMs / bareMs, 1)}× ±${fmt(spreadPct(graph.rounds.ours), 0)}%`,
          goal: 'none set (issue: measured)',
          met: null,
          figures: { rounds: graph.rounds },
        },
        {
          name: `ui graph view, ${(hugeRows * hugeCols).toLocaleString('en-US')}-stage lattice`,
          ours: `${fmtMs(hugeMs)} click to painted`,
          baseline: `${fmtMs(hugeBareMs)} plain DOM boxes + SVG edges`,
          ratio: `${fmt(hugeMs / hugeBareMs, 1)}× ±${fmt(spreadPct(huge.rounds.ours), 0)}%`,
          goal: 'drawn (issue: 10,000 stages accepted, scheduled and drawn)',
          met: Number.isFinite(hugeMs),
          figures: { rounds: huge.rounds },
        },
        {
          name: `ui terminal view, ${mb} MB live (viewer with flow control)`,
          ours: `${fmt(mb / (viewMs / 1000), 1)} MB/s to the screen, end marker shown`,
          baseline: `${fmt(mb / (rawMs / 1000), 1)} MB/s raw node-pty; ${fmt(mb / (floorMs / 1000), 1)} MB/s xterm.js alone on a bare relay (the floor: ${fmt(rawMs / floorMs, 2)}× raw)`,
          ratio: `${fmt(ratio, 2)}× (${fmt(floorMs / viewMs, 2)}× the floor) ±${fmt(spreadPct(stream.ours), 0)}%`,
          goal: '≥ 0.8× raw, nothing lost',
          met: ratio >= 0.8,
          floor: rawMs / floorMs,
          figures: { bytes, rounds: stream, floorMs },
        },
      ];
    } finally {
      for (const graphId of graphIds) await callTool(client, 'tasks_cancel', { graphId }).catch(() => undefined);
      await browser.close();
      await closeAll([client]);
      await room.stop();
      home.cleanup();
    }
  },
};
