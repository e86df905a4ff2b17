#!/usr/bin/env node
// Fills a room with history for the `startup` benchmark: `handoffs` full handoff cycles (create, accept,
// complete, approve: several events each) and `graphs` one-stage graphs run to the end. Runs the shipped
// engine in this process (out/main/bench-entry.js), so it cannot run while a room process holds the room.
// usage: fill-room.js ROOM.md HANDOFFS GRAPHS   (COMMONROOM_DATA_DIR / COMMONROOM_CONFIG_DIR from the environment)
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO } from './room.js';

const [markdown, handoffs, graphs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
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
  for (let i = 0; i < handoffs; i++) {
    const { handoff } = await engine.call(operator, 'handoff_create', { summary: `history ${i}`, to: 'filler' });
    await engine.call(agent, 'handoff_accept', { handoffId: handoff.id });
    await engine.call(agent, 'handoff_complete', { handoffId: handoff.id, result: `result ${i}` });
    await engine.call(operator, 'handoff_approve', { handoffId: handoff.id });
  }
  const ids = [];
  for (let i = 0; i < graphs; i++) {
    const r = await engine.call(operator, 'tasks_run', { name: `history-${i}`, maxParallel: 1, stages: [{ id: 'only', command: ['true'] }] });
    ids.push(r.graphId);
    // a few at a time, so the machine is not flooded with processes
    if (ids.length % 8 === 0) await waitEnded(ids.slice(-8));
  }
  await waitEnded(ids);
  console.log(JSON.stringify({ handoffs, graphs }));
} finally {
  await engine.close();
}

async function waitEnded(graphIds) {
  for (const graphId of graphIds) {
    for (;;) {
      const status = await engine.call(engine.operator(), 'tasks_status', { graphId });
      if (status.graph.endedAt) break;
      await sleep(10);
    }
  }
}
