#!/usr/bin/env node
// A/B of two builds on shell-stream, in one run: a room of each build (BIN_BEFORE's CLI and the current out/),
// the same flood read by cursor with 1 MiB pages, alternating, several rounds. Besides MiB/s (which swings
// with the machine's load) it reports the room process's CPU time per MiB read (its threads' run time from /proc, `cpuMsOf`),
// the page sizes and the round trip per page, and the peak RSS growth.
// usage: node bench/investigations/ab-stream.js BIN_BEFORE [ROUNDS]   (BIN_BEFORE: a commonroom.js importing the before build,
// or Node flags starting with -- for the current build run with them, e.g. --max-semi-space-size=1)
import { Buffer } from 'node:buffer';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { produce, SHELL_ENV } from '../lib/flood.js';
import { cpuMsOf, makeHome, memoryOf, startRoom } from '../lib/room.js';
import { median, percentile } from '../lib/stats.js';

const [binBefore, roundsArg = '3'] = process.argv.slice(2);
if (!binBefore) {
  console.error('usage: node bench/investigations/ab-stream.js BIN_BEFORE [ROUNDS]');
  process.exit(2);
}
const MiB = 2 ** 20;
const bytes = Number(process.env.BENCH_STREAM_MIB ?? 64) * MiB;
const PAGE = 1024 * 1024;
const command = `${produce(bytes)}\n`;
const at = (cursor) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))[2];

async function open(label, bin) {
  const home = makeHome(`ab-stream-${label}`);
  if (bin?.startsWith('--')) home.nodeArgs = bin.split(' ');
  else if (bin) home.bin = path.resolve(bin);
  const room = await startRoom(home);
  const client = await connect('2026', room.url, room.token);
  const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV });
  await callTool(client, 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: '\\$ $', timeoutMs: 10_000 } });
  return { label, home, room, client, shellId: shell.id };
}

async function flood(s) {
  const before = memoryOf(s.room.pid);
  const cpu0 = cpuMsOf(s.room.pid);
  const t = performance.now();
  let r = await callTool(s.client, 'shell_io', { shellId: s.shellId, text: command, format: 'raw', maxBytes: PAGE });
  let tail = '';
  let dropped = 0;
  const pages = [];
  const trips = [];
  for (;;) {
    tail = (tail + r.output).slice(-64);
    if (/BENCHEND/.test(tail)) break;
    const cursor = r.nextCursor;
    const t1 = performance.now();
    r = await callTool(s.client, 'shell_io', { shellId: s.shellId, cursor, format: 'raw', maxBytes: PAGE });
    trips.push(performance.now() - t1);
    pages.push(at(r.nextCursor) - at(r.cursor));
    if (r.truncated) dropped += at(r.cursor) - at(cursor);
  }
  const ms = performance.now() - t;
  const read = (bytes - dropped) / MiB;
  const result = {
    mibps: bytes / MiB / (ms / 1000),
    cpuPerMiB: (cpuMsOf(s.room.pid) - cpu0) / read,
    pageKiB: percentile(pages, 50) / 1024,
    tripMs: percentile(trips, 50),
    droppedMiB: dropped / MiB,
    rssGrowthMiB: (memoryOf(s.room.pid).hwmKiB - before.rssKiB) / 1024,
  };
  // let the shell settle before the next flood
  await callTool(s.client, 'shell_io', { shellId: s.shellId, wait: { until: 'idle', idleMs: 300, timeoutMs: 30_000 } });
  return result;
}

const sides = [await open('before', binBefore), await open('after', undefined)];
const results = { before: [], after: [] };
try {
  for (let round = 0; round < Number(roundsArg); round++) {
    for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
      const r = await flood(s);
      results[s.label].push(r);
      console.log(
        `${s.label.padEnd(6)} ${r.mibps.toFixed(1)} MiB/s, room CPU ${r.cpuPerMiB.toFixed(1)} ms/MiB read, page p50 ${r.pageKiB.toFixed(0)} KiB, ` +
          `round trip p50 ${r.tripMs.toFixed(1)} ms, dropped ${r.droppedMiB.toFixed(1)} MiB, RSS +${r.rssGrowthMiB.toFixed(0)} MiB`,
      );
    }
  }
  for (const label of ['before', 'after']) {
    const m = (key) => median(results[label].map((r) => r[key])).toFixed(1);
    console.log(`${label} medians: ${m('mibps')} MiB/s, room CPU ${m('cpuPerMiB')} ms/MiB read, page ${m('pageKiB')} KiB, RSS +${m('rssGrowthMiB')} MiB`);
  }
} finally {
  for (const s of sides) {
    await closeAll([s.client]);
    await s.room.stop();
    s.home.cleanup();
  }
}
