#!/usr/bin/env node
// What the disk sees per handoff cycle: `strace -f -T` on the room (current out/, or BIN) during CYCLES cycles,
// and on the bare server during as many rounds of four `durable_noop` calls (one fsync'd commit each): fsyncs,
// the time spent in them, and the writes (count and bytes) to each file, per cycle. Needs strace (and ptrace
// permission over the processes this starts). usage: node bench/investigations/syscalls-per-cycle.js [2025|2026] [CYCLES] [BIN]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withHandoffRig } from '../lib/handoff-rig.js';

const [era = '2026', cyclesArg = '50', bin] = process.argv.slice(2);
const cycles = Number(cyclesArg);

/** Runs `work` with strace attached to `pid`; returns the parsed trace. */
async function traced(pid, work) {
  const file = path.join(os.tmpdir(), `commonroom-strace-${pid}-${Date.now()}.txt`);
  const strace = spawn('strace', ['-f', '-T', '-y', '-e', 'trace=fsync,fdatasync,pwrite64,write,writev,pread64', '-o', file, '-p', String(pid)], { stdio: 'ignore' });
  await sleep(500); // strace attaches to every thread
  await work();
  strace.kill('SIGINT');
  await new Promise((resolve) => strace.on('exit', resolve));
  const text = fs.readFileSync(file, 'utf8');
  fs.rmSync(file, { force: true });
  const stats = new Map();
  for (const line of text.split('\n')) {
    const m = /^\d+\s+(\w+)\((\d+)<([^>]*)>.*= (-?\d+).*<([\d.]+)>$/.exec(line);
    if (!m) continue;
    const [, call, , target, result, secs] = m;
    const file = /\.db-wal$|\.db$|\.db-shm$/.test(target) ? path.basename(target).replace(/^.*(\.db(-wal|-shm)?)$/, '*$1') : /socket/.test(target) ? 'socket' : path.basename(target);
    const key = `${call} ${file}`;
    const s = stats.get(key) ?? { n: 0, bytes: 0, ms: 0 };
    s.n++;
    if (/write/.test(call)) s.bytes += Math.max(0, Number(result));
    s.ms += Number(secs) * 1000;
    stats.set(key, s);
  }
  return stats;
}

function show(label, stats, n) {
  console.log(`${label} (per cycle, ${n} cycles):`);
  for (const [key, s] of [...stats].sort((a, b) => b[1].ms - a[1].ms)) {
    console.log(`  ${key.padEnd(28)} ${(s.n / n).toFixed(2).padStart(6)} calls ${(s.bytes / n / 1024).toFixed(1).padStart(7)} KiB ${(s.ms / n).toFixed(2).padStart(7)} ms`);
  }
}

await withHandoffRig('syscalls', bin, ({ room, bare, withEra }) => withEra(era, async ({ cycle, fourDurable }) => {
  for (let i = 0; i < 20; i++) {
    await cycle();
    await fourDurable();
  }
  show(`room ${era}`, await traced(room.pid, async () => { for (let i = 0; i < cycles; i++) await cycle(); }), cycles);
  show(`bare ${era}, four durable_noop`, await traced(bare.pid, async () => { for (let i = 0; i < cycles; i++) await fourDurable(); }), cycles);
}));
