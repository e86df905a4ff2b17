// ui: the person's view in real Chromium against `commonroom serve`.
//  - graph view: from clicking a 1,000-stage graph (25×40 lattice) in the list until every stage in its view is
//    painted with its name (linear layout, the stages near the view through React Flow), against its floor:
//    "data + linear layout + visible boxes" built bare in the same page (parse the topology JSON, the same
//    linear pass, the boxes that meet a canvas of the app's size as plain DOM + SVG); then the same for the
//    largest graph the room accepts, 10,000 stages (250×40). Goal: 1,000 ≤ 2× the floor; 10,000 ≤ 1 s.
//  - terminal view: a command writes V bytes through a shell the page shows live (the UI door's viewer with
//    flow control: the PTY is paused rather than bytes dropped), until the terminal shows the end marker,
//    against raw node-pty in this process reading the same command's output, and against its floor: a page with
//    nothing but xterm.js (made as the app makes it) in the same browser, fed over a loopback WebSocket by
//    bench/lib/bare-relay.js (raw node-pty, the room's frames and flow control), timed the same way.
/* global document, requestAnimationFrame -- the functions passed to page.evaluate and waitForFunction run in the browser */
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

/**
 * The floor of the graph view: "read the data, linear layout, draw the visible boxes", built bare in the same
 * page. It asks the room for the graph's topology over the page's own link (the same door and the same answer
 * the app reads), parses it, lays it out in layers (the same one linear pass the app uses, written out here), and
 * draws the stages that meet a canvas of the app's size at its readable zoom (11/13) as plain DOM boxes (id,
 * state, what it waits on) with their edges as SVG, until two frames are painted.
 */
async function bareDraw(page, graphId) {
  return page.evaluate(
    (graphId) =>
      new Promise((resolve, reject) => {
        const dag = document.querySelector('[data-testid="graph-dag"]')?.getBoundingClientRect() ?? { width: 1000, height: 600 };
        const socket = (globalThis.benchSockets ?? []).filter((s) => s.readyState === 1).at(-1);
        if (!socket) return reject(new Error('the page has no open link to the room'));
        const id = 1_000_000_000 + Math.floor(Math.random() * 1_000_000);
        const t = performance.now();
        const onMessage = (e) => {
          if (typeof e.data !== 'string' || !e.data.startsWith('{"t":"result"') || !e.data.includes(`"id":${id},`)) return;
          socket.removeEventListener('message', onMessage);
          draw(JSON.parse(e.data).value.stages);
        };
        socket.addEventListener('message', onMessage);
        socket.send(JSON.stringify({ t: 'call', id, method: 'tasks_graph', input: { graphId } }));
        const draw = (stages) => {
          const W = 190, H = 64, GX = 60, GY = 24, zoom = 11 / 13;
          const index = new Map(stages.map((s, i) => [s.id, i]));
          const layer = new Array(stages.length).fill(0);
          const waiting = new Array(stages.length).fill(0);
          const dependents = stages.map(() => []);
          stages.forEach((s, i) => s.dependsOn.forEach((d) => { const f = index.get(d); if (f !== undefined) { dependents[f].push(i); waiting[i]++; } }));
          const queue = [];
          stages.forEach((_, i) => waiting[i] === 0 && queue.push(i));
          for (let h = 0; h < queue.length; h++) for (const j of dependents[queue[h]]) { layer[j] = Math.max(layer[j], layer[queue[h]] + 1); if (--waiting[j] === 0) queue.push(j); }
          const rows = new Map();
          const pos = stages.map((_, i) => { const r = rows.get(layer[i]) ?? 0; rows.set(layer[i], r + 1); return { x: 24 + layer[i] * (W + GX) * zoom, y: 24 + r * (H + GY) * zoom }; });
          const seen = (p) => p.x < dag.width && p.y < dag.height && p.x + W * zoom > 0 && p.y + H * zoom > 0;
          const host = document.createElement('div');
          host.style.cssText = `position:fixed;left:0;top:0;width:${dag.width}px;height:${dag.height}px;overflow:hidden;background:#fff;z-index:99999`;
          const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
          svg.setAttribute('width', String(dag.width));
          svg.setAttribute('height', String(dag.height));
          svg.style.cssText = 'position:absolute;left:0;top:0';
          stages.forEach((s, i) => {
            if (!seen(pos[i])) return;
            const box = document.createElement('div');
            box.innerHTML = `<b>${s.id}</b><div>${s.state}</div><div>${s.dependsOn.length ? `waits on ${s.dependsOn.join(', ')}` : ''}</div>`;
            box.style.cssText = `position:absolute;left:${pos[i].x}px;top:${pos[i].y}px;width:${W * zoom}px;height:${H * zoom}px;border:1px solid #999;border-radius:6px;font:11px sans-serif`;
            host.appendChild(box);
            for (const d of s.dependsOn) {
              const f = pos[index.get(d)];
              if (!f) continue;
              const line = document.createElementNS('http://www.w3.org/2000/svg', 'path');
              line.setAttribute('d', `M${f.x + W * zoom},${f.y + (H * zoom) / 2} L${pos[i].x},${pos[i].y + (H * zoom) / 2}`);
              line.setAttribute('stroke', '#999');
              svg.appendChild(line);
            }
          });
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
        };
      }),
    graphId,
  );
}

/**
 * Clicks graph `id` in the list and resolves, in the page, with the time until every stage its view shows is
 * painted with its name (the app's `data-in-view`, counted from its layout and viewport; far out, its canvas
 * drawn), and one more frame. Timed in the page, as the floor is: no round trip to this process is counted.
 */
function clickAndTimePainted(id) {
  const painted = () => {
    const dag = document.querySelector('[data-testid="graph-dag"]');
    if (!dag || document.querySelector('.graph-row.active')?.getAttribute('data-graph-id') !== id) return false;
    const want = Number(dag.getAttribute('data-in-view') ?? 0);
    if (!(want > 0)) return false;
    if (dag.getAttribute('data-lod') === 'overview') return dag.querySelector('[data-testid="dag-overview"]')?.dataset.drawn !== undefined;
    const r = dag.getBoundingClientRect();
    let n = 0;
    for (const node of dag.querySelectorAll('.react-flow__node')) {
      const b = node.getBoundingClientRect();
      if (b.right > r.left && b.left < r.right && b.bottom > r.top && b.top < r.bottom && b.width > 0 && node.querySelector('.stage-node-id')?.textContent) n++;
    }
    return n >= want;
  };
  return new Promise((resolve) => {
    const t = performance.now();
    document.querySelector(`.graph-row[data-graph-id="${id}"]`).click();
    const tick = () => (painted() ? requestAnimationFrame(() => resolve(performance.now() - t)) : requestAnimationFrame(tick));
    tick();
  });
}

/** Click the small graph, then time the big one from its click until every stage in its view is painted. */
export async function drawGraph(page, smallId, bigId) {
  await page.evaluate(clickAndTimePainted, smallId);
  return page.evaluate(clickAndTimePainted, bigId);
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
    // the issue's 50 MB (BENCH_UI_MB=50) takes minutes per round on a loaded 2-core box; 10 MB keeps the suite in budget
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
      // the graph floor asks the room over the page's own link: keep a hand on the page's sockets
      await page.addInitScript(() => {
        const Native = globalThis.WebSocket;
        globalThis.WebSocket = class extends Native {
          constructor(...args) {
            super(...args);
            (globalThis.benchSockets ??= []).push(this);
          }
        };
      });
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
          () => bareDraw(page, graphId),
        );
        log(`graph view ${r * c} stages: ${fmtMs(median(timed.ours))} (floor: data + linear layout + visible boxes ${fmtMs(median(timed.baseline))})`);
        return { rounds: timed, ms: median(timed.ours), bareMs: median(timed.baseline) };
      };
      const graph = await drawn(bigId, rows, cols);
      const { ms: drawMs, bareMs } = graph;
      const huge = await drawn(hugeId, hugeRows, hugeCols);
      const { ms: hugeMs, bareMs: hugeBareMs } = huge;

      const graphRows = [
        {
          name: `ui graph view, ${rows * cols}-stage lattice`,
          ours: `${fmtMs(drawMs)} click to every visible stage painted`,
          baseline: `${fmtMs(bareMs)} floor: the topology read over the page's link, linear layout, the visible boxes + edges as plain DOM + SVG`,
          ratio: `${fmt(drawMs / bareMs, 1)}× ±${fmt(spreadPct(graph.rounds.ours), 0)}%`,
          goal: '≤ 2× the floor',
          met: drawMs <= 2 * bareMs,
          figures: { rounds: graph.rounds },
        },
        {
          name: `ui graph view, ${(hugeRows * hugeCols).toLocaleString('en-US')}-stage lattice`,
          ours: `${fmtMs(hugeMs)} click to every visible stage painted`,
          baseline: `${fmtMs(hugeBareMs)} floor: the topology read over the page's link, linear layout, the visible boxes + edges as plain DOM + SVG`,
          ratio: `${fmt(hugeMs / hugeBareMs, 1)}× ±${fmt(spreadPct(huge.rounds.ours), 0)}%`,
          goal: 'drawn in ≤ 1 s',
          met: hugeMs <= 1000,
          figures: { rounds: huge.rounds },
        },
      ];
      // BENCH_UI_ONLY=graph: the graph rows alone (the terminal rows take minutes on a loaded box)
      if (process.env.BENCH_UI_ONLY === 'graph') return graphRows;

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
        ...graphRows,
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
