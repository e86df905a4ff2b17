#!/usr/bin/env node
// The `remote` row's 64 MiB stream alone, with where its CPU goes: a remote shell on the private sshd of
// bench/lib/ssh-rig.js; per round, an agent reading the output by cursor, the same output only waited for (the
// stream into the room's copy), `ssh host CMD` and `ssh -tt host CMD` read here. Each of ours is followed by the
// CPU time of every process on the path, from /proc (utime + stime): the room, the laptop's ssh, the host's sshd,
// the relay (`commonroom node --stdio`), the node, this process (the agent's MCP client).
// usage: node bench/investigations/remote-stream.js [ROUNDS] (BENCH_STREAM_MIB, default 64; ONLY=cursor or
// ONLY=waited: that one of ours alone, so a profile is of it alone; THREADS=1: each process's main thread's part too,
// the rest being its collector's and libuv's threads; the host's account is crhost-stream, BENCH_SSH_USER, so a
// benchmark run at the same time neither swaps its checkout nor is counted here; PROFILE=1: the room, the relay and the node under
// --cpu-prof, their self time printed at the end; needs root, like the bench)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { callTool } from '../lib/clients.js';
import { produce, SHELL_ENV } from '../lib/flood.js';
import { summarize } from '../lib/profiles.js';
import { ssh, startRemoteRoom } from '../lib/remote-room.js';
import { sshRigUnavailable } from '../lib/ssh-rig.js';
import { agent as readFlood } from '../benchmarks/shell-stream.js';

const MiB = 2 ** 20;
const rounds = Number(process.argv[2] ?? 2);
const bytes = Number(process.env.BENCH_STREAM_MIB ?? 64) * MiB;
const profiling = process.env.PROFILE === '1';
const only = process.env.ONLY ?? '';

const why = sshRigUnavailable();
if (why) {
  console.error(`not run: ${why}`);
  process.exit(2);
}

/** The node daemons seen (ended at the end, so a profiled one writes its profile). */
const daemons = new Set();

/** The host's account: its own one (BENCH_SSH_USER, ssh-rig.js), so that another run's rig neither shares it nor is counted here. */
const hostUser = (process.env.BENCH_SSH_USER ||= 'crhost-stream');

/** CPU ms of every process now, by label (the processes of the path named; the rest ignored). */
function cpuByLabel(roomPid) {
  const out = {};
  const hostUid = Number(execFileSync('id', ['-u', hostUser], { encoding: 'utf8' }));
  // the room's home (its masters' control sockets), from its command line: `serve --room HOME/room.md`
  const roomArgs = fs.readFileSync(`/proc/${roomPid}/cmdline`, 'utf8').split('\0');
  const roomHome = path.dirname(roomArgs[roomArgs.indexOf('--room') + 1] ?? '/nowhere');
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const owner = fs.statSync(`/proc/${entry}`).uid;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const pid = Number(entry);
      let label = null;
      if (pid === roomPid) label = 'room';
      else if (pid === process.pid) label = 'agent (this process)';
      else if (owner !== hostUid && owner !== 0) continue;
      else if (/ node --stdio/.test(cmd) && !/^ssh /.test(cmd) && !/^sshd/.test(cmd) && !cmd.includes('-c exec')) label = 'relay (node --stdio)';
      else if (/ node --daemon/.test(cmd)) {
        label = 'node (daemon)';
        daemons.add(pid);
      }
      else if (/^ssh .*node --stdio/.test(cmd) || (/^ssh: .*\[mux\]/.test(cmd) && (cmd.includes(roomHome) || cmd.includes(runDir)))) label = 'ssh (the link)';
      else if (cmd.startsWith(`sshd: ${hostUser}`)) label = 'sshd (host session)';
      if (!label) continue;
      out[label] = (out[label] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10;
      // the kernel's part (the PTY's reads and writes, the sockets' copies)
      out[`${label} sys`] = (out[`${label} sys`] ?? 0) + Number(fields[12]) * 10;
      // its main thread's part (the rest: the collector's, libuv's threads)
      if (process.env.THREADS === '1') {
        const main = fs.readFileSync(`/proc/${entry}/task/${entry}/stat`, 'utf8');
        const m = main.slice(main.lastIndexOf(')') + 2).split(' ');
        out[`${label} main`] = (out[`${label} main`] ?? 0) + (Number(m[11]) + Number(m[12])) * 10;
      }
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
const diff = (a, b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, Math.round(v - (a[k] ?? 0))]));

let profDir = '';
/** Profiling: the room with --cpu-prof, and the host's node through its login shell (the host account's .profile). */
function prepare(dir) {
  if (!profiling) return undefined;
  profDir = path.join(dir, 'prof');
  fs.mkdirSync(profDir, { mode: 0o777 });
  fs.chmodSync(profDir, 0o777);
  // the host's account: the relay and the node it starts inherit NODE_OPTIONS from its login shell (--cpu-prof is not
  // allowed there: lib-cpu-prof.mjs profiles through the inspector)
  const hook = path.join(dir, 'cpu-prof.mjs');
  fs.copyFileSync(path.join(import.meta.dirname, 'lib-cpu-prof.mjs'), hook);
  fs.appendFileSync(path.join(execFileSync('getent', ['passwd', hostUser], { encoding: 'utf8' }).split(':')[5], '.profile'), `export CPU_PROF_DIR=${profDir} NODE_OPTIONS="--import ${hook}"\n`);
  return ['--cpu-prof', '--cpu-prof-dir', profDir];
}
const step = (what) => process.stderr.write(`[end] ${what}\n`);
const { dir: runDir, rig, room, client, master, close } = await startRemoteRoom('commonroom-remote-stream-', { prepare, step });
const mbps = (ms) => (bytes / MiB / (ms / 1000)).toFixed(0);
try {
  const { shell } = await callTool(client, 'shell_open', { host: rig.alias, shell: '/bin/sh', args: [], env: SHELL_ENV, name: 'remote stream' });
  await callTool(client, 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: '\\$ $', timeoutMs: 15_000 } });
  await readFlood(client, shell.id, MiB); // warm-up
  // a reader by cursor holds the stream until it has been silent for the shell's stall time (2 s): past it
  await new Promise((r) => setTimeout(r, 2500));
  console.log(`${bytes / MiB} MiB, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (let i = 0; i < rounds; i++) {
    let before = cpuByLabel(room.pid);
    if (only !== 'waited') {
      const r = await readFlood(client, shell.id, bytes);
      console.log(`by cursor: ${mbps(r.ms)} MiB/s (${r.pages} pages, ${r.dropped} missed) cpu ms ${JSON.stringify(diff(before, cpuByLabel(room.pid)))}`);
      // a reader by cursor holds the stream until it has been silent for the shell's stall time (2 s): past it
      await new Promise((r) => setTimeout(r, 2500));
    }
    if (only !== 'cursor') {
      before = cpuByLabel(room.pid);
      const t = performance.now();
      const w = await callTool(client, 'shell_io', { shellId: shell.id, text: `${produce(bytes)}\n`, maxBytes: 1, wait: { until: 'match', pattern: 'BENCHEND', timeoutMs: 300_000 } });
      if (w.wait?.reason !== 'matched') throw new Error(`wait ended ${w.wait?.reason}`);
      console.log(`streamed, waited for: ${mbps(performance.now() - t)} MiB/s cpu ms ${JSON.stringify(diff(before, cpuByLabel(room.pid)))}`);
    }
    const s = await ssh([...master, produce(bytes)]);
    before = cpuByLabel(room.pid);
    const tt = await ssh(['-tt', ...master, produce(bytes)]);
    const ttCpu = diff(before, cpuByLabel(room.pid));
    console.log(`ssh CMD ${mbps(s.ms)} MiB/s; ssh -tt CMD ${mbps(tt.ms)} MiB/s cpu ms ${JSON.stringify({ sshd: ttCpu['sshd (host session)'], ssh: ttCpu['ssh (the link)'] })}`);
  }
  await callTool(client, 'shell_close', { shellId: shell.id });
} finally {
  await close(async () => {
    if (!profiling) return;
    // the node writes its profile when it ends
    for (const pid of daemons) process.kill(pid, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 2000));
    for (const f of fs.readdirSync(profDir)) summarize(f, JSON.parse(fs.readFileSync(path.join(profDir, f), 'utf8')), 25);
  });
}
