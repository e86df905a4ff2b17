#!/usr/bin/env node
// Where the room process spends its time under one benchmark's load: runs `commonroom serve` with
// --cpu-prof, drives it with a small workload, stops it (the profile is written on a clean exit) and prints
// the self time by function (top N) and the idle share. usage: node bench/investigations/profile.js shell-roundtrip|shell-stream|mcp-call|room_info-2025|room_info-2026|handoff-cycle[-2025|-2026]|graph|graph-wide-1000|graph-chain-1000|graph-lattice-1000|graph-lattice-10000 [N]
import fs from 'node:fs';
import path from 'node:path';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { addParticipant, makeHome, startRoom } from '../lib/room.js';

/** Runs each [shape, size] graph of `true` stages at maxParallel 2, followed to its end with one waiting tasks_status. */
async function graphs(room, list) {
  const { shape } = await import('../benchmarks/graph.js');
  const client = await connect('2026', room.url, room.token);
  for (const [kind, n] of list) {
    const stages = shape(kind, n, kind === 'lattice' && n > 256 ? 40 : undefined).map((s) => ({ id: s.id, command: ['true'], dependsOn: s.dependsOn }));
    const { graphId } = await callTool(client, 'tasks_run', { name: kind, maxParallel: 2, stages });
    while (!(await callTool(client, 'tasks_status', { graphId, stages: false, waitMs: 20_000, until: 'ended' })).graph.endedAt);
  }
  await closeAll([client]);
}

const workloads = {
  async 'shell-roundtrip'(room) {
    const client = await connect('2026', room.url, room.token);
    const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: { PS1: '$ ' } });
    await callTool(client, 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: '\\$ $', timeoutMs: 10_000 } });
    for (let i = 0; i < 200; i++) await callTool(client, 'shell_io', { shellId: shell.id, text: 'echo tok\n', wait: { until: 'match', pattern: '(^|\\$ )tok\\r?$' }, maxBytes: 1024 });
    await closeAll([client]);
  },
  async 'shell-stream'(room) {
    const client = await connect('2026', room.url, room.token);
    const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: { PS1: '$ ' } });
    let r = await callTool(client, 'shell_io', { shellId: shell.id, text: "head -c 16000000 /dev/zero | tr '\\0' y; printf 'BENCH%s\\n' END\n", format: 'raw', maxBytes: 1024 * 1024 });
    let tail = '';
    while (!/BENCHEND/.test((tail = (tail + r.output).slice(-64)))) r = await callTool(client, 'shell_io', { shellId: shell.id, cursor: r.nextCursor, format: 'raw', maxBytes: 1024 * 1024 });
    await closeAll([client]);
  },
  async 'mcp-call'(room) {
    for (const era of ['2025', '2026']) {
      const clients = await Promise.all(Array.from({ length: 8 }, () => connect(era, room.url, room.token)));
      await Promise.all(clients.map(async (c) => { for (let i = 0; i < 100; i++) await callTool(c, 'room_info'); }));
      await closeAll(clients);
    }
  },
  // one client calling room_info back to back on one era: the two doors' request paths side by side
  async 'room_info-2025'(room) { await roomInfoLoop('2025', room); },
  async 'room_info-2026'(room) { await roomInfoLoop('2026', room); },
  async graph(room) {
    await graphs(room, [['wide', 256], ['chain', 256], ['lattice', 256]]);
  },
  async 'graph-wide-1000'(room) {
    await graphs(room, [['wide', 1000]]);
  },
  async 'graph-chain-1000'(room) {
    await graphs(room, [['chain', 1000]]);
  },
  async 'graph-lattice-1000'(room) {
    await graphs(room, [['lattice', 1000]]);
  },
  async 'graph-lattice-10000'(room) {
    await graphs(room, [['lattice', 10_000]]);
  },
  async 'handoff-cycle'(room, home) { await handoffLoop('2026', 100, room, home); },
  // 1,500 cycles on one era: enough for the room to warm up, to set one era's profile beside the other's
  async 'handoff-cycle-2025'(room, home) { await handoffLoop('2025', 1500, room, home); },
  async 'handoff-cycle-2026'(room, home) { await handoffLoop('2026', 1500, room, home); },
};

async function handoffLoop(era, cycles, room, home) {
  const agentToken = addParticipant(home, 'agent', 'read,write');
  const operator = await connect(era, room.url, room.token);
  const agent = await connect(era, room.url, agentToken);
  for (let i = 0; i < cycles; i++) {
    const { handoff } = await callTool(operator, 'handoff_create', { summary: 'p', to: 'agent' });
    await callTool(agent, 'handoff_accept', { handoffId: handoff.id });
    await callTool(agent, 'handoff_complete', { handoffId: handoff.id, result: 'r' });
    await callTool(operator, 'handoff_approve', { handoffId: handoff.id });
  }
  await closeAll([operator, agent]);
}

async function roomInfoLoop(era, room) {
  const client = await connect(era, room.url, room.token);
  for (let i = 0; i < 4000; i++) await callTool(client, 'room_info');
  await closeAll([client]);
}

const [name, top = '25'] = process.argv.slice(2);
if (!workloads[name]) {
  console.error(`usage: node bench/investigations/profile.js ${Object.keys(workloads).join('|')} [TOP]`);
  process.exit(2);
}
const home = makeHome('profile');
const dir = path.join(home.root, 'prof');
home.nodeArgs = ['--cpu-prof', '--cpu-prof-dir', dir];
const room = await startRoom(home);
try {
  await workloads[name](room, home);
} finally {
  await room.stop();
}
const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  const f = node.callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : ''}`.trim();
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = (self.get('(idle)') ?? 0) + (self.get('(program)') ?? 0) * 0;
console.log(`${name}: ${(total / 1000).toFixed(0)} ms profiled, idle ${((idle / total) * 100).toFixed(0)}%, busy ${((total - idle) / 1000).toFixed(0)} ms`);
for (const [key, us] of [...self].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
  console.log(`${((us / (total - idle)) * 100).toFixed(1).padStart(5)}% of busy  ${key}`);
}
if (process.env.BENCH_KEEP_PROFILE) fs.copyFileSync(path.join(dir, file), process.env.BENCH_KEEP_PROFILE);
home.cleanup();
