#!/usr/bin/env node
// Fills a room with N ended handoffs for the `handoff-list` benchmark: a month of history between the operator
// and four agents (agent-0…3), 85 % approved, 8 % rejected, 7 % cancelled, one in ten open to anyone before it was
// taken. The rows are written straight into the handoffs table in the shape the engine writes them (see
// store/handoffs.ts), in one transaction: a million handoffs through the engine's calls would take hours on
// 2 cores, and what a list costs depends on the rows and the indexes, not on how they were made. Their tasks
// are gone, as an ended handoff's task is one TTL after it ended. Opens the room with the shipped engine
// (out/main/bench-entry.js: the schema migrated as `serve` would), so it cannot run while a room process holds it.
// usage: fill-handoffs.js ROOM.md N   (COMMONROOM_DATA_DIR / COMMONROOM_CONFIG_DIR from the environment)
import path from 'node:path';
import { REPO } from './room.js';

const [markdown, count] = [process.argv[2], Number(process.argv[3])];
const { Room } = await import(path.join(REPO, 'out/main/bench-entry.js'));
const room = Room.open({ markdown, paths: { dataDir: process.env.COMMONROOM_DATA_DIR, configDir: process.env.COMMONROOM_CONFIG_DIR } });
room.db.pragma('synchronous = OFF');
const insert = room.db.prepare(
  `INSERT INTO handoffs (id, task_id, owner, target, assignee, status, summary, constraints, artifacts, result, input_answers, decision, cancellation, idempotency_key, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, NULL, '[]', ?, '{}', ?, ?, NULL, ?, ?)`,
);
const MONTH = 30 * 24 * 3600 * 1000;
const start = Date.now() - MONTH - 3600 * 1000; // ends an hour ago: the benchmark's open handoffs are newer
const pad = (i) => String(i).padStart(8, '0');
const write = room.db.transaction((from, to) => {
  for (let i = from; i < to; i++) {
    const created = start + Math.floor((i * MONTH) / count);
    const createdAt = new Date(created).toISOString();
    const endedAt = new Date(created + 60_000).toISOString();
    const agent = `agent-${i % 4}`;
    const owner = i % 2 === 0 ? 'operator' : `agent-${(i + 1) % 4}`;
    const target = i % 10 === 0 ? null : agent;
    const roll = i % 100;
    const status = roll < 85 ? 'approved' : roll < 93 ? 'rejected' : 'cancelled';
    const done = status !== 'cancelled';
    const result = done ? JSON.stringify({ text: `result ${i}`, artifacts: [], completedBy: agent, completedAt: endedAt }) : null;
    const decision = done ? JSON.stringify({ approved: status === 'approved', by: 'operator', at: endedAt, reason: status === 'rejected' ? 'not yet' : null }) : null;
    const cancellation = done ? null : JSON.stringify({ by: owner, at: endedAt, reason: 'no longer needed' });
    insert.run(`hf_fill${pad(i)}`, `tk_fill${pad(i)}`, owner, target, agent, status, `history ${i}`, result, decision, cancellation, createdAt, endedAt);
  }
});
for (let from = 0; from < count; from += 100_000) write(from, Math.min(count, from + 100_000));
room.db.pragma('wal_checkpoint(TRUNCATE)');
const handoffs = room.db.prepare('SELECT count(*) AS n FROM handoffs').get().n;
room.close();
console.log(JSON.stringify({ handoffs }));
