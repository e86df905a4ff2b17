#!/usr/bin/env node
// The room's side of the ui benchmark's terminal row without a browser: this process attaches to a shell over
// the UI socket (as `ce shell attach` does, with the operator's token) and acknowledges every frame at once,
// while the shell writes BENCH_UI_MB (10) MB. Per round: wall time and the room process's CPU time (from /proc,
// which a loaded machine does not skew the way it skews wall time); then the room's CPU profile (self time).
// usage: node bench/investigations/profile-ui-socket.js [ROUNDS] [TOP]
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { SHELL_ENV } from '../benchmarks/ui.js';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { cpuOfTree, cpuSince, summarize } from '../lib/profiles.js';
import { makeHome, startRoom } from '../lib/room.js';
import { decodeFrame } from '../lib/ui-viewer.js';

const [rounds = '3', top = '25'] = process.argv.slice(2);
const bytes = Number(process.env.BENCH_UI_MB ?? 10) * 1_000_000;
const home = makeHome('profile-ui-socket');
const dir = path.join(home.root, 'prof');
home.nodeArgs = ['--cpu-prof', '--cpu-prof-dir', dir];
const room = await startRoom(home);
const client = await connect('2026', room.url, room.token);
try {
  const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV, name: 'socket stream' });
  const ws = new WebSocket(`ws://${room.url.host}/ui/socket`, { headers: { authorization: `Bearer ${room.token}` }, perMessageDeflate: false, maxPayload: 64 * 2 ** 20 });
  let text = '';
  let received = 0;
  ws.on('message', (data, isBinary) => {
    const message = decodeFrame(data, isBinary); // binary frames now, base64 in JSON before (either build)
    if (message.t !== 'shell.data') return;
    const chunk = message.bytes;
    received += chunk.length;
    text = (text + chunk.toString('latin1')).slice(-64);
    ws.send(JSON.stringify({ t: 'shell.ack', shellId: shell.id, bytes: chunk.length }));
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ t: 'shell.attach', shellId: shell.id }));
  for (let round = 1; round <= Number(rounds); round++) {
    const cpu = cpuOfTree(room.pid);
    const t = performance.now();
    const from = received;
    await callTool(client, 'shell_io', { shellId: shell.id, text: `head -c ${bytes} /dev/zero | tr '\\0' y | fold -w 100; printf '\\nBENCH%s\\n' END${round}\n` });
    while (!text.includes(`BENCHEND${round}`)) await new Promise((r) => setTimeout(r, 5));
    const ms = performance.now() - t;
    const used = cpuSince(cpu, cpuOfTree(room.pid));
    console.log(`round ${round}: ${((received - from) / 1e6).toFixed(1)} MB in ${ms.toFixed(0)} ms (${((received - from) / 1e3 / ms).toFixed(1)} MB/s); room CPU ms ${JSON.stringify(used)}`);
  }
  ws.close();
} finally {
  await closeAll([client]);
  await room.stop();
}
const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
summarize('room process (whole run, including start)', JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), Number(top));
home.cleanup();
