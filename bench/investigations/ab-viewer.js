#!/usr/bin/env node
// A/B of two builds on the shell-stream viewer row, in one run: a room of each build (BIN_BEFORE's CLI and the
// current out/), each with a viewer on its UI socket (bench/lib/ui-viewer.js, which reads both wire formats),
// the same flood watched in turn with raw node-pty between, the order rotating each round. Besides MiB/s (which
// swings with the machine's load) it reports the room's and the viewer's CPU time per MiB (from /proc and
// process.cpuUsage), which load skews far less.
// usage: node bench/investigations/ab-viewer.js BIN_BEFORE [ROUNDS]   (BIN_BEFORE: bin/commonroom.js of the before build;
// AB_NODE_ARGS: node flags for both rooms)
import path from 'node:path';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { produce, rawFlood, SHELL_ENV } from '../lib/flood.js';
import { cpuOfTree } from '../lib/profiles.js';
import { makeHome, startRoom } from '../lib/room.js';
import { median } from '../lib/stats.js';
import { UiViewer } from '../lib/ui-viewer.js';

const [binBefore, roundsArg = '4'] = process.argv.slice(2);
if (!binBefore) {
  console.error('usage: node bench/investigations/ab-viewer.js BIN_BEFORE [ROUNDS]');
  process.exit(2);
}
const MiB = 2 ** 20;
const bytes = Number(process.env.BENCH_STREAM_MIB ?? 64) * MiB;

async function side(label, bin) {
  const home = makeHome(`ab-viewer-${label}`);
  if (bin) home.bin = path.resolve(bin);
  // AB_NODE_ARGS: the same node/V8 flags for both rooms, e.g. --no-memory-reducer (a room whose heap the memory
  // reducer shrank marks its whole heap every few hundred ms in a flood)
  if (process.env.AB_NODE_ARGS) home.nodeArgs = process.env.AB_NODE_ARGS.split(' ').filter(Boolean);
  const room = await startRoom(home);
  const client = await connect('2026', room.url, room.token);
  const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV });
  const viewer = await UiViewer.open(room.url, room.token);
  viewer.attach(shell.id);
  const type = (n) => () => callTool(client, 'shell_io', { shellId: shell.id, text: `${produce(n)}\n`, maxBytes: 1 });
  await viewer.watch(64 * 1024, type(64 * 1024));
  const results = [];
  return {
    label,
    results,
    async round() {
      const cpu = cpuOfTree(room.pid).node ?? 0;
      const own = process.cpuUsage();
      const r = await viewer.watch(bytes, type(bytes));
      const mine = process.cpuUsage(own);
      const roomMs = (cpuOfTree(room.pid).node ?? 0) - cpu;
      results.push({ ms: r.ms, intact: r.lost === 0 && r.missing === 0 && r.other === 0 && r.truncatedFrames === 0, roomMs, viewerMs: (mine.user + mine.system) / 1000 });
    },
    async close() {
      viewer.close();
      await closeAll([client]);
      await room.stop();
      home.cleanup();
    },
  };
}

function raw() {
  const results = [];
  return {
    label: 'raw node-pty',
    results,
    async round() {
      const r = await rawFlood(bytes);
      results.push({ ms: r.ms, intact: true, roomMs: 0, viewerMs: r.cpuMs });
    },
    async close() {},
  };
}

const sides = [await side('before', binBefore), await side('after'), raw()];
try {
  for (let i = 0; i < Number(roundsArg); i++) {
    for (let k = 0; k < sides.length; k++) await sides[(i + k) % sides.length].round();
  }
} finally {
  for (const s of sides) await s.close();
}
const mb = bytes / MiB;
// paired by round (the two rooms ran minutes apart at most): the drift of the machine's load cancels out
const pairs = sides[0].results.map((b, i) => ({ b, a: sides[1].results[i] }));
const ratio = (f) => median(pairs.map(({ a, b }) => f(a) / f(b))).toFixed(2);
console.log(`after / before, median of the rounds' ratios: room CPU ${ratio((r) => r.roomMs)}×, time ${ratio((r) => r.ms)}×`);
for (const s of sides) {
  const ms = s.results.map((r) => r.ms);
  console.log(
    `${s.label.padEnd(13)} ${(mb / (median(ms) / 1000)).toFixed(1).padStart(6)} MiB/s (rounds ${ms.map((x) => (mb / (x / 1000)).toFixed(0)).join(' ')}), ` +
      `room CPU ${(median(s.results.map((r) => r.roomMs)) / mb).toFixed(1)} ms/MiB (rounds ${s.results.map((r) => (r.roomMs / mb).toFixed(0)).join(' ')}), this process ${(median(s.results.map((r) => r.viewerMs)) / mb).toFixed(1)} ms/MiB, ` +
      `${s.results.every((r) => r.intact) ? 'nothing lost' : 'LOST BYTES'}`,
  );
}
