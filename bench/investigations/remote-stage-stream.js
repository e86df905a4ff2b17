#!/usr/bin/env node
// A remote STAGE's output streamed into the room (the `remote` row "remote stage output"), alone, with where its
// CPU goes: a graph stage placed on the private sshd's host (bench/lib/ssh-rig.js) writing BENCH_STREAM_MIB
// (default 8: a stage's log keeps at most LIMITS.maxStageLogBytes, 8 MiB) of 'y' to stdout, timed from tasks_run
// to the graph's end (the room's copy of its log then holds all of it), then read by an agent by cursor; against
// `ssh host CMD` (the same output through a pipe there, read here) in the same round.
// usage: node bench/investigations/remote-stage-stream.js [ROUNDS]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeAll, connect } from '../lib/clients.js';
import { callApi, makeHome, startRoom } from '../lib/room.js';
import { sshRigUnavailable, startSshRig } from '../lib/ssh-rig.js';
import { oursStageStream, readStageLog, ssh, stageOutput } from '../benchmarks/remote.js';

const MiB = 2 ** 20;
const rounds = Number(process.argv[2] ?? 3);
const bytes = Number(process.env.BENCH_STREAM_MIB ?? 8) * MiB;
const why = sshRigUnavailable();
if (why) {
  console.error(`not run: ${why}`);
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-remote-stage-'));
fs.chmodSync(dir, 0o755);
const rig = await startSshRig(path.join(dir, 'ssh'));
const home = makeHome('remote');
home.env.COMMONROOM_SSH_CONFIG = rig.configFile;
const room = await startRoom(home);
const client = await connect('2026', room.url, room.token);
const master = [...rig.sshArgs, '-o', 'ControlMaster=auto', '-o', `ControlPath=${path.join(dir, 'cm-%C')}`, '-o', 'ControlPersist=120', rig.alias];
const mbps = (ms) => (bytes / MiB / (ms / 1000)).toFixed(0);
try {
  await callApi(room, room.token, 'host_add', { alias: rig.alias });
  await ssh([...master, 'true']);
  await oursStageStream(client, rig.alias, MiB); // warm-up
  console.log(`${bytes / MiB} MiB, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (let i = 0; i < rounds; i++) {
    const r = await oursStageStream(client, rig.alias, bytes);
    const read = await readStageLog(client, r.graphId);
    const s = await ssh([...master, stageOutput(bytes)]);
    console.log(`stage to its end: ${mbps(r.ms)} MiB/s; its log read by cursor: ${(read.bytes / MiB / (read.ms / 1000)).toFixed(0)} MiB/s (${read.bytes} bytes of stdout, ${read.pages} pages); ssh CMD ${mbps(s.ms)} MiB/s (${s.bytes} bytes)`);
  }
} finally {
  await closeAll([client]);
  await room.stop();
  await ssh([...master.slice(0, -1), '-O', 'exit', rig.alias]).catch(() => {});
  await rig.stop();
  home.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
}
