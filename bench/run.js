#!/usr/bin/env node
// Benchmarks, kept out of the test suite: each result is a ratio against a baseline measured in the same run,
// so the numbers mean the same on a fast or a slow machine. Run with `npm run bench` (builds first).
import { performance } from 'node:perf_hooks';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as pty from 'node-pty';

const { Engine } = await import('../out/main/bench-entry.js').catch(() => ({}));
if (!Engine) {
  console.error('bench: out/main/bench-entry.js is missing: run "npm run build" first');
  process.exit(1);
}
const { Room } = await import('../out/main/bench-entry.js');

const MB = 1024 * 1024;

/** Baseline: node-pty alone, reading the same output and throwing it away. */
async function rawPty(bytes) {
  return new Promise((resolve) => {
    const started = performance.now();
    const term = pty.spawn('/bin/sh', ['-c', `head -c ${bytes} /dev/zero | tr '\\0' 'y'`], { encoding: null, cols: 120, rows: 32 });
    let seen = 0;
    term.onData((d) => (seen += d.length));
    term.onExit(() => resolve({ ms: performance.now() - started, seen }));
  });
}

/** The same output through a Commonroom shell (ring, cursors, an active pattern wait). */
async function throughShell(engine, bytes) {
  const operator = engine.operator();
  const { shell } = await engine.call(operator, 'shell_open', { shell: '/bin/sh', args: [] });
  const started = performance.now();
  const r = await engine.call(operator, 'shell_io', {
    shellId: shell.id,
    text: `head -c ${bytes} /dev/zero | tr '\\0' 'y'; printf 'BENCH%s\\n' DONE\n`,
    wait: { until: 'match', pattern: 'BENCHDONE', timeoutMs: 45_000 },
  });
  const ms = performance.now() - started;
  await engine.call(operator, 'shell_close', { shellId: shell.id });
  if (r.wait?.reason !== 'matched') throw new Error(`shell bench did not finish: ${r.wait?.reason}`);
  return { ms };
}

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-bench-'));
  const engine = await Engine.start(Room.open({ paths: { dataDir: path.join(root, 'data'), configDir: path.join(root, 'config') } }));
  try {
    const bytes = 100 * MB;
    await rawPty(MB); // warm up
    const base = await rawPty(bytes);
    const ours = await throughShell(engine, bytes);
    const mbps = (ms) => (bytes / MB / (ms / 1000)).toFixed(0);
    console.log(`shell output, ${bytes / MB} MB: raw node-pty ${mbps(base.ms)} MB/s, through a Commonroom shell ${mbps(ours.ms)} MB/s`);
    console.log(`ratio (Commonroom / raw): ${(base.ms / ours.ms).toFixed(2)} of baseline throughput`);
  } finally {
    await engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
