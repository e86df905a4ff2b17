#!/usr/bin/env node
// Fills a room with history for the `startup` benchmark: one-stage graphs run to the end, and full handoff
// cycles (create, accept, complete, approve: about four events and four audit rows each, so the event ring and
// the audit ring fill). Prints what the room holds: handoffs, events appended and kept, audit rows. Runs the shipped engine in this process
// (out/main/bench-entry.js), so it cannot run while a room process holds the room.
// usage: fill-room.js ROOM.md HANDOFFS GRAPHS          HANDOFFS cycles and GRAPHS graphs
//        fill-room.js ROOM.md --events N --graphs G   G graphs, then cycles until N events were appended
//                                                     (the room's event ring keeps the newest; ids count all)
// (COMMONROOM_DATA_DIR / COMMONROOM_CONFIG_DIR from the environment)
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO } from './room.js';

const ACTIVE = 16; // graphs a room lets run at once (maxActiveGraphs)
const LANES = 8; // handoff cycles at once
const markdown = process.argv[2];
const flag = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : null;
};
const byEvents = flag('--events');
const graphs = byEvents === null ? Number(process.argv[4]) : (flag('--graphs') ?? 0);
const handoffs = byEvents === null ? Number(process.argv[3]) : Infinity;
const { Engine, Room } = await import(path.join(REPO, 'out/main/bench-entry.js'));
const paths = { dataDir: process.env.COMMONROOM_DATA_DIR, configDir: process.env.COMMONROOM_CONFIG_DIR };
const room = Room.open({ markdown, paths });
// generating history is not what is measured: skip the per-commit fsync while filling
room.db.pragma('synchronous = OFF');
const engine = await Engine.start(room);
try {
  const operator = engine.operator();
  const { token } = await engine.call(operator, 'participant_add', { name: 'filler', capabilities: ['read', 'write'] });
  const agent = token ? engine.authenticate(token) : null;
  if (!agent) throw new Error('could not add the filler participant');
  // as many graphs at once as a room lets run, the oldest awaited before the next starts
  const inFlight = [];
  for (let i = 0; i < graphs; i++) {
    if (inFlight.length >= ACTIVE) await waitEnded([inFlight.shift()]);
    const r = await engine.call(operator, 'tasks_run', { name: `history-${i}`, maxParallel: 1, stages: [{ id: 'only', command: ['true'] }] });
    inFlight.push(r.graphId);
  }
  await waitEnded(inFlight);
  const lastEvent = room.db.prepare('SELECT max(id) AS id FROM events');
  const cycle = async (i) => {
    const { handoff } = await engine.call(operator, 'handoff_create', { summary: `history ${i}`, to: 'filler' });
    await engine.call(agent, 'handoff_accept', { handoffId: handoff.id });
    await engine.call(agent, 'handoff_complete', { handoffId: handoff.id, result: `result ${i}` });
    await engine.call(operator, 'handoff_approve', { handoffId: handoff.id });
  };
  // LANES cycles at a time (the calls wait on the engine's turns, not on the CPU)
  let cycles = 0;
  while (cycles < handoffs) {
    if (byEvents !== null && (lastEvent.get().id ?? 0) >= byEvents) break;
    const batch = Math.min(LANES, handoffs - cycles);
    await Promise.all(Array.from({ length: batch }, (_, j) => cycle(cycles + j)));
    cycles += batch;
  }
  const count = (table) => room.db.prepare(`SELECT count(*) AS n FROM ${table}`).get().n;
  engine.audit.flush();
  console.log(JSON.stringify({ handoffs: count('handoffs'), cycles, graphs, events: lastEvent.get().id ?? 0, eventsKept: count('events'), auditRows: count('audit') }));
} finally {
  await engine.close();
}

async function waitEnded(graphIds) {
  for (const graphId of graphIds) {
    for (;;) {
      const status = await engine.call(engine.operator(), 'tasks_status', { graphId });
      if (status.graph.endedAt) break;
      await sleep(2);
    }
  }
}
