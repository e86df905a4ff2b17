#!/usr/bin/env node
// A remote STAGE's output streamed into the room (the `remote` row "remote stage output"), alone, with where its
// CPU goes: a graph stage placed on the private sshd's host (bench/lib/ssh-rig.js) writing BENCH_STREAM_MIB
// (default 8: a stage's log keeps at most LIMITS.maxStageLogBytes, 8 MiB) of 'y' to stdout, timed from tasks_run
// to the graph's end (the room's copy of its log then holds all of it), then read by an agent by cursor; against
// `ssh host CMD` (the same output through a pipe there, read here) in the same round.
// usage: node bench/investigations/remote-stage-stream.js [ROUNDS]
import os from 'node:os';
import { ssh, startRemoteRoom } from '../lib/remote-room.js';
import { sshRigUnavailable } from '../lib/ssh-rig.js';
import { oursStageStream, readStageLog, stageOutput } from '../benchmarks/remote.js';

const MiB = 2 ** 20;
const rounds = Number(process.argv[2] ?? 3);
const bytes = Number(process.env.BENCH_STREAM_MIB ?? 8) * MiB;
const why = sshRigUnavailable();
if (why) {
  console.error(`not run: ${why}`);
  process.exit(2);
}
const { rig, client, master, close } = await startRemoteRoom('commonroom-remote-stage-');
const mbps = (ms) => (bytes / MiB / (ms / 1000)).toFixed(0);
try {
  await oursStageStream(client, rig.alias, MiB); // warm-up
  console.log(`${bytes / MiB} MiB, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (let i = 0; i < rounds; i++) {
    const r = await oursStageStream(client, rig.alias, bytes);
    const read = await readStageLog(client, r.graphId);
    const s = await ssh([...master, stageOutput(bytes)]);
    console.log(`stage to its end: ${mbps(r.ms)} MiB/s; its log read by cursor: ${(read.bytes / MiB / (read.ms / 1000)).toFixed(0)} MiB/s (${read.bytes} bytes of stdout, ${read.pages} pages); ssh CMD ${mbps(s.ms)} MiB/s (${s.bytes} bytes)`);
  }
} finally {
  await close();
}
