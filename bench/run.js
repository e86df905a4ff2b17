#!/usr/bin/env node
// The benchmark suite (`npm run bench [-- NAME…] [--smoke] [--out FILE] [--table FILE]`). Every benchmark talks
// to the room process from outside, through its public doors, and reports a ratio against a baseline measured in the
// same run (alternating rounds, medians, spread), so the figures mean the same on a fast or a loaded machine.
// Prints one table and writes the results with a description of the machine as JSON. A full run also rewrites
// the latest table in BENCHMARKS.md between its markers (the rows of the benchmarks that ran; a failed one's rows
// marked failed on that date: bench/lib/table.js); `--table FILE` writes that table in FILE instead, and a
// `--smoke` run writes none unless given `--table`, so tiny sizes never replace the real figures. Any failed
// benchmark makes the run exit 1. BENCH_FAIL=NAME makes that benchmark fail at once (to see the failure path).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BENCHMARKS } from './benchmarks/index.js';
import { REPO } from './lib/room.js';
import { failureOf, printedRow, writeTable } from './lib/table.js';

// The 2025 SDK client hands one AbortSignal to every fetch of a session; undici drops each request's listener
// only once that request is garbage collected, so a fast call loop passes Node's leak warning (1,500) between
// collections and would print it hundreds of times. That one warning, on an AbortSignal, is not shown.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'MaxListenersExceededWarning' && /\[AbortSignal\]/.test(warning.message)) return;
  console.error(`${warning.name}: ${warning.message}`);
});

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const valueOf = (flag) => (args.includes(flag) ? path.resolve(args[args.indexOf(flag) + 1] ?? '') : undefined);
const out = valueOf('--out') ?? path.join(REPO, 'bench/results/latest.json');
const tableFile = valueOf('--table') ?? (smoke ? undefined : path.join(REPO, 'BENCHMARKS.md'));
const values = new Set(['--out', '--table'].map((flag) => args.indexOf(flag) + 1).filter((i) => i > 0));
const names = args.filter((a, i) => !a.startsWith('--') && !values.has(i));
const unknown = names.filter((n) => !BENCHMARKS.some((b) => b.name === n));
if (unknown.length > 0 || !fs.existsSync(path.join(REPO, 'out/main/commonroom.js'))) {
  console.error(unknown.length > 0 ? `unknown benchmark ${unknown.join(', ')}` : 'out/ is missing: run "npm run build" first');
  console.error(`usage: npm run bench [-- NAME…] [--smoke] [--out FILE] [--table FILE]; benchmarks: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
  process.exit(2);
}
const selected = names.length > 0 ? BENCHMARKS.filter((b) => names.includes(b.name)) : BENCHMARKS;

const machine = () => ({
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.availableParallelism(),
  memoryMiB: Math.round(os.totalmem() / 2 ** 20),
  node: process.version,
  platform: `${os.type()} ${os.release()} ${os.arch()}`,
  loadavg: os.loadavg().map((l) => Number(l.toFixed(2))),
});

const log = (line) => process.stderr.write(`  ${line}\n`);
const started = performance.now();
const results = { startedAt: new Date().toISOString(), smoke, machineAtStart: machine(), benchmarks: [] };
let failed = false;
for (const bench of selected) {
  const t = performance.now();
  process.stderr.write(`${bench.name}…\n`);
  try {
    if (process.env.BENCH_FAIL === bench.name) throw new Error(`${bench.name} failed on purpose (BENCH_FAIL)`);
    const rows = await bench.run({ smoke, log });
    results.benchmarks.push({ name: bench.name, seconds: (performance.now() - t) / 1000, rows });
  } catch (error) {
    failed = true;
    console.error(`${bench.name} failed:`, error);
    results.benchmarks.push({ name: bench.name, seconds: (performance.now() - t) / 1000, error: String(error?.stack ?? error), rows: [] });
  }
  // written after each benchmark too, so a long run that dies later keeps what it measured
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(results, null, 2));
}
results.machineAtEnd = machine();
results.seconds = (performance.now() - started) / 1000;

const rows = results.benchmarks.flatMap((b) => (b.error ? [{ name: b.name, ours: `FAILED: ${failureOf(b.error)}`, baseline: '', ratio: '', goal: '', met: false }] : b.rows));
const table = [
  '| benchmark | ours | baseline | ratio | goal | met? |',
  '| --- | --- | --- | --- | --- | --- |',
  ...rows.map(printedRow),
];
results.table = table.join('\n');
const m = results.machineAtStart;
console.log(`\n${m.cpu}, ${m.cores} cores, ${m.memoryMiB} MiB, Node ${m.node}; load ${m.loadavg.join(' ')} → ${results.machineAtEnd.loadavg.join(' ')}; ${results.seconds.toFixed(0)} s\n`);
console.log(results.table);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(results, null, 2));
console.log(`\nresults: ${path.relative(process.cwd(), out)}`);
if (tableFile !== undefined) {
  const ran = results.benchmarks.filter((b) => !b.error);
  const broke = results.benchmarks.filter((b) => b.error);
  const written = writeTable(tableFile, ran, results.startedAt.replace(/:\d\d\.\d+Z$/, 'Z'), broke);
  console.log(`table: ${path.relative(process.cwd(), tableFile)} (${written} rows of ${ran.map((b) => b.name).join(', ') || 'nothing'} replaced${broke.length > 0 ? `; ${broke.map((b) => b.name).join(', ')} marked failed` : ''})`);
}
process.exit(failed ? 1 : 0);
