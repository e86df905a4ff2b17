#!/usr/bin/env node
// Each call of the handoff cycle on its own, against the bare server's no-op and its durable_noop (one fsync'd
// commit) and the room's room_info (a call that commits nothing), interleaved, 60 rounds, the same clients as
// the benchmarks: medians in ms after 10 warm-up rounds. Shows what a commit adds to a call.
// usage: node bench/investigations/handoff-calls.js [2025|2026] [BIN]
import { performance } from 'node:perf_hooks';
import { startBare } from '../lib/bare.js';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { addParticipant, makeHome, startRoom } from '../lib/room.js';
const era = process.argv[2] ?? '2026';
const home = makeHome('pc'); if (process.argv[3]) home.bin = process.argv[3];
const room = await startRoom(home); const bare = await startBare();
const agentToken = addParticipant(home, 'agent', 'read,write');
const op = await connect(era, room.url, room.token); const ag = await connect(era, room.url, agentToken); const base = await connect(era, bare.url, bare.token);
const t = { noop: [], durable_noop: [], room_info: [], create: [], accept: [], complete: [], approve: [] };
const time = async (k, f) => { const s = performance.now(); const r = await f(); t[k].push(performance.now() - s); return r; };
for (let i = 0; i < 60; i++) {
  await time('noop', () => callTool(base, 'noop', {}));
  await time('durable_noop', () => callTool(base, 'durable_noop', {}));
  await time('room_info', () => callTool(op, 'room_info', {}));
  const { handoff } = await time('create', () => callTool(op, 'handoff_create', { summary: 'x', to: 'agent' }));
  await time('accept', () => callTool(ag, 'handoff_accept', { handoffId: handoff.id }));
  await time('complete', () => callTool(ag, 'handoff_complete', { handoffId: handoff.id, result: 'r' }));
  await time('approve', () => callTool(op, 'handoff_approve', { handoffId: handoff.id }));
}
const med = (v) => v.slice(10).sort((a, b) => a - b)[(v.length - 10) >> 1].toFixed(1);
console.log(`${era}: ${Object.entries(t).map(([k, v]) => `${k} ${med(v)} ms`).join(', ')}`);
await closeAll([op, ag, base]); await bare.stop(); await room.stop(); home.cleanup();
