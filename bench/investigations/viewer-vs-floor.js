#!/usr/bin/env node
// The `shell-stream` viewer row taken apart: the room's live viewer and its floor (the same viewer on
// bench/lib/bare-relay.js) side by side, with raw node-pty between, the order rotating each round. Besides MiB/s
// it prints each server process's CPU per MiB (/proc: user + system) and the viewer's own (process.cpuUsage),
// which the machine's load skews far less than throughput.
// usage: node bench/investigations/viewer-vs-floor.js [ROUNDS]   (BENCH_STREAM_MIB: size of a flood, 256 by default;
// VIEWER_WARM_MIB: an uncounted flood on each side first, 64 by default; BENCH_BIN: another build's CLI)
import { spawn } from 'node:child_process';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { BARE_RELAY, startBare } from '../lib/bare.js';
import { produce, rawFlood, SHELL_ENV } from '../lib/flood.js';
import { cpuMsOf, makeHome, startRoom } from '../lib/room.js';
import { fmt, median } from '../lib/stats.js';
import { UiViewer } from '../lib/ui-viewer.js';

const rounds = Number(process.argv[2] ?? 4);
const MiB = 2 ** 20;
const bytes = Number(process.env.BENCH_STREAM_MIB ?? 256) * MiB;
const warm = Number(process.env.VIEWER_WARM_MIB ?? 64) * MiB;

function watched(label, pid, viewer, type, output = () => '') {
  const results = [];
  return {
    label,
    results,
    async round(n = bytes) {
      // STRACE=1: the server process's system calls during the round, counted (slows it: figures then mean little)
      const tracer = process.env.STRACE === '1' && n === bytes ? spawn('strace', ['-c', '-f', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] }) : null;
      let traced = '';
      tracer?.stderr.on('data', (d) => (traced += d));
      // PERF=1: the server process sampled by `perf record` during the round (JIT names from --perf-basic-prof)
      const perfFile = `/tmp/viewer-vs-floor-${label}.perf`;
      const perf = process.env.PERF === '1' && n === bytes && !tracer ? spawn('perf', ['record', '-F', '1999', '-g', '-p', String(pid), '-o', perfFile], { stdio: 'ignore' }) : null;
      if (tracer || perf) await new Promise((r) => setTimeout(r, 300));
      const cpu = cpuMsOf(pid);
      const outputFrom = output().length;
      const own = process.cpuUsage();
      const r = await viewer.watch(n, type(n));
      const mine = process.cpuUsage(own);
      if (perf) {
        const ended = new Promise((r) => perf.on('exit', r));
        perf.kill('SIGINT');
        await ended;
      }
      if (tracer) {
        const ended = new Promise((r) => tracer.on('exit', r));
        tracer.kill('SIGINT');
        await ended;
        console.log(`${label}:\n${traced.split('\n').filter((l) => !l.startsWith('strace:')).slice(0, 16).join('\n')}`);
      }
      const gcLines = output().slice(outputFrom).split('\n');
      const count = (re) => gcLines.filter((l) => re.test(l)).length;
      if (/trace-gc/.test(process.env.ROOM_NODE_ARGS ?? '') && label === 'room' && n === bytes) console.log(`  room gc: ${count(/Scavenge/)} scavenges, ${count(/Mark-Compact/)} mark-compacts`);
      const intact = r.lost === 0 && r.missing === 0 && r.other === 0 && r.truncatedFrames === 0;
      return { ms: r.ms, intact, serverMs: cpuMsOf(pid) - cpu, viewerMs: (mine.user + mine.system) / 1000 };
    },
  };
}

async function raw(n) {
  const r = await rawFlood(n);
  return { ms: r.ms, intact: true, serverMs: 0, viewerMs: r.cpuMs };
}

const home = makeHome('viewer-vs-floor');
// ROOM_NODE_ARGS: node/V8 flags for the room (e.g. --trace-gc; its output is printed after each round)
home.nodeArgs = [...(process.env.PERF === '1' ? ['--perf-basic-prof'] : []), ...(process.env.ROOM_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const room = await startRoom(home);
const client = await connect('2026', room.url, room.token);
const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV });
const viewer = await UiViewer.open(room.url, room.token);
viewer.attach(shell.id);
const relay = await startBare({ script: BARE_RELAY, nodeArgs: process.env.PERF === '1' ? ['--perf-basic-prof'] : [] });
const relayed = await UiViewer.open(relay.url, relay.token);
relayed.attach('relayed');
const sides = [
  watched('room', room.pid, viewer, (n) => () => callTool(client, 'shell_io', { shellId: shell.id, text: `${produce(n)}\n`, maxBytes: 1 }), room.output),
  watched('relay', relay.pid, relayed, (n) => async () => relayed.ws.send(JSON.stringify({ t: 'type', text: `${produce(n)}\n` }))),
  { label: 'raw', results: [], round: raw },
];
try {
  for (const side of sides.slice(0, 2)) {
    await side.round(64 * 1024);
    if (warm > 0) await side.round(warm);
  }
  for (let i = 0; i < rounds; i++) {
    const order = sides.map((_, k) => sides[(i + k) % sides.length]);
    const line = [];
    for (const side of order) {
      const r = await side.round(bytes);
      side.results.push(r);
      line.push(`${side.label} ${fmt(bytes / MiB / (r.ms / 1000), 1)} MiB/s ${fmt(r.serverMs / (bytes / MiB), 1)}+${fmt(r.viewerMs / (bytes / MiB), 1)} ms/MiB${r.intact ? '' : ' LOST'}`);
    }
    console.log(`round ${i + 1}: ${line.join(' | ')}`);
  }
  const rate = (side) => median(side.results.map((r) => bytes / MiB / (r.ms / 1000)));
  const per = (side, key) => median(side.results.map((r) => r[key] / (bytes / MiB)));
  const [ours, floor, rawSide] = sides;
  console.log(
    `medians: room ${fmt(rate(ours), 1)} MiB/s (${fmt(per(ours, 'serverMs'), 1)} ms/MiB, viewer ${fmt(per(ours, 'viewerMs'), 1)}), ` +
      `relay ${fmt(rate(floor), 1)} MiB/s (${fmt(per(floor, 'serverMs'), 1)}, viewer ${fmt(per(floor, 'viewerMs'), 1)}), raw ${fmt(rate(rawSide), 1)} MiB/s; ` +
      `room ${fmt(rate(ours) / rate(rawSide), 2)}× raw, relay ${fmt(rate(floor) / rate(rawSide), 2)}× raw, room ${fmt(rate(ours) / rate(floor), 2)}× relay`,
  );
  // per round: the room against the relay next to it (the load's drift cancels)
  const paired = ours.results.map((r, k) => floor.results[k].ms / r.ms);
  console.log(`room/relay per round: ${paired.map((x) => fmt(x, 2)).join(' ')}`);
} finally {
  viewer.close();
  relayed.close();
  await relay.stop();
  await closeAll([client]);
  await room.stop();
  home.cleanup();
}
