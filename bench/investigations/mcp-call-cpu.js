#!/usr/bin/env node
// The `mcp-call` workload with the server's own CPU time per call (its threads' run time from /proc, `cpuMsOf`, which
// a shared machine disturbs far less than wall time; the clients' own CPU per call too), for the bare server and one room per build, in one run:
// each round every side runs once, the order rotating. Optionally profiles every server (--prof DIR: each
// runs with --cpu-prof; the summaries are printed at the end, PROFILE_INCLUSIVE=N adds inclusive shares).
// usage: node bench/investigations/mcp-call-cpu.js [--eras 2025,2026] [--tools room_info,handoff_get] [--clients 1,8,32]
//        [--rounds 4] [--ms 1500] [--prof DIR] [BIN…]   (BIN: a commonroom.js of another build)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBare } from '../lib/bare.js';
import { callLoop, callTool, closeAll, connectMany } from '../lib/clients.js';
import { summarize } from '../lib/profiles.js';
import { addParticipant, cpuMsOf, makeHome, startRoom } from '../lib/room.js';
import { fmt, median, percentile } from '../lib/stats.js';

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const [value] = argv.splice(at, 2).slice(1);
  return value;
};
const eras = opt('eras', '2025,2026').split(',');
const tools = opt('tools', 'room_info,handoff_get').split(',');
const levels = opt('clients', '1,8,32').split(',').map(Number);
const rounds = Number(opt('rounds', '4'));
const ms = Number(opt('ms', '1500'));
const profDir = opt('prof', undefined);
const bins = argv;

const nodeArgs = (label) => (profDir ? ['--cpu-prof', '--cpu-prof-dir', path.join(path.resolve(profDir), label)] : []);

async function openRoom(label, bin) {
  const home = makeHome(`mcp-cpu-${label}`);
  if (bin) home.bin = path.resolve(bin);
  home.nodeArgs = nodeArgs(label);
  const room = await startRoom(home);
  addParticipant(home, 'agent', 'read,write');
  const tokens = [0, 1, 2, 3].map((i) => addParticipant(home, `reader-${i}`, 'read,approve')); // 8 clients each (connectMany)
  const [setup] = await connectMany('2026', room.url, room.token, 1);
  const { handoff } = await callTool(setup, 'handoff_create', { summary: 'benchmark handoff', to: 'agent' });
  await closeAll([setup]);
  const args = { room_info: {}, handoff_get: { handoffId: handoff.id } };
  return {
    label,
    pid: room.pid,
    connect: (era, n) => connectMany(era, room.url, tokens, n),
    call: (tool) => [tool, args[tool]],
    stop: async () => {
      await room.stop();
      home.cleanup();
    },
  };
}

const bare = await startBare({ nodeArgs: nodeArgs('bare') });
const sides = [
  { label: 'bare', pid: bare.pid, connect: (era, n) => connectMany(era, bare.url, bare.token, n), call: () => ['noop', {}], stop: () => bare.stop() },
  await openRoom('current'),
  ...(await Promise.all(bins.map((b, i) => openRoom(`bin${i + 1}`, b)))),
];
console.log(`sides: ${sides.map((s) => s.label).join(', ')}${bins.length ? ` (${bins.map((b, i) => `bin${i + 1}=${b}`).join(', ')})` : ''}; ${rounds} rounds × ${ms} ms; load ${os.loadavg()[0].toFixed(1)}`);
try {
  for (const era of eras) {
    const max = Math.max(...levels);
    const clients = new Map();
    for (const side of sides) clients.set(side, await side.connect(era, max));
    try {
      for (const tool of tools) {
        for (const n of levels) {
          const results = new Map(sides.map((s) => [s, []]));
          for (const side of sides) await callLoop(clients.get(side).slice(0, n), ...side.call(tool), 200); // warm-up
          for (let round = 0; round < rounds; round++) {
            const order = sides.map((_, i) => sides[(i + round) % sides.length]);
            for (const side of order) {
              const c0 = cpuMsOf(side.pid);
              const u0 = process.cpuUsage();
              const r = await callLoop(clients.get(side).slice(0, n), ...side.call(tool), ms);
              const u = process.cpuUsage(u0);
              const client = (u.user + u.system) / 1000 / r.calls;
              results.get(side).push({ rate: r.rate, p99: percentile(r.latencies, 99), cpu: (cpuMsOf(side.pid) - c0) / r.calls, client });
            }
          }
          const m = (side, key) => median(results.get(side).map((x) => x[key]));
          const base = sides[0];
          const cells = sides.map((s) => {
            const ratios = s === base ? '' : ` (${fmt(median(results.get(s).map((x, i) => x.rate / results.get(base)[i].rate)), 2)}×, p99 ${fmt(median(results.get(s).map((x, i) => x.p99 / results.get(base)[i].p99)), 2)}×)`;
            return `${s.label} ${fmt(m(s, 'rate'), 0)}/s p99 ${fmt(m(s, 'p99'), 1)} ms cpu ${fmt(m(s, 'cpu'), 2)} ms/call (clients ${fmt(m(s, 'client'), 2)})${ratios}`;
          });
          console.log(`${era} ${tool} ×${n}: ${cells.join(' | ')}`);
        }
      }
    } finally {
      await closeAll([...clients.values()].flat());
    }
  }
} finally {
  for (const side of sides) await side.stop();
}
console.log(`load at the end ${os.loadavg()[0].toFixed(1)}`);
if (profDir) {
  for (const side of sides) {
    const dir = path.join(path.resolve(profDir), side.label);
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
      summarize(`${side.label} (${file})`, JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), Number(process.env.PROFILE_TOP ?? 25));
    }
  }
}
