#!/usr/bin/env node
// A/B of two builds on the startup benchmark, in one run: spawn → first answered room_info of the before
// build's CLI and the current out/, on the same empty room and the same room with history, alternating, with
// the bare server in between. usage: node bench/investigations/ab-startup.js BIN_BEFORE [ROUNDS] [HANDOFFS] [GRAPHS]
// (BIN_BEFORE: a commonroom.js of the before build, e.g. .tmp/out-before/main/commonroom.js)
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { bareStartup, oursStartup } from '../benchmarks/startup.js';
import { makeHome } from '../lib/room.js';
import { fmtMs, median } from '../lib/stats.js';

const [binBefore, roundsArg = '8', handoffs = '600', graphs = '60'] = process.argv.slice(2);
if (!binBefore) {
  console.error('usage: node bench/investigations/ab-startup.js BIN_BEFORE [ROUNDS] [HANDOFFS] [GRAPHS]');
  process.exit(2);
}
const empty = makeHome('ab-startup-empty');
const large = makeHome('ab-startup-large');
const as = (home, bin) => ({ ...home, ...(bin ? { bin: path.resolve(bin) } : {}) });
try {
  await oursStartup(empty);
  const fill = spawnSync(process.execPath, [path.join(import.meta.dirname, '../lib/fill-room.js'), large.roomFile, handoffs, graphs], { env: large.env, encoding: 'utf8' });
  if (fill.status !== 0) throw new Error(`filling the room failed: ${fill.stdout}${fill.stderr}`);
  const runs = { 'before empty': [], 'after empty': [], 'before large': [], 'after large': [], bare: [] };
  const once = {
    'before empty': () => oursStartup(as(empty, binBefore), true),
    'after empty': () => oursStartup(empty, true),
    'before large': () => oursStartup(as(large, binBefore), true),
    'after large': () => oursStartup(large, true),
    bare: () => bareStartup(true),
  };
  for (const f of Object.values(once)) await f(); // warm the file cache
  const names = Object.keys(once);
  for (let r = 0; r < Number(roundsArg); r++) {
    // a different order each round, so a drift of the machine's load hits every side alike
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      runs[name].push(await once[name]());
    }
  }
  // wall time, and the CPU time the process used until its first answer (steadier on a shared machine)
  const bare = median(runs.bare.map((x) => x.ms));
  const bareCpu = median(runs.bare.map((x) => x.cpuMs));
  for (const [name, list] of Object.entries(runs)) {
    const ms = list.map((x) => x.ms);
    const cpu = median(list.map((x) => x.cpuMs));
    console.log(
      `${name.padEnd(13)} wall median ${fmtMs(median(ms))} (${(median(ms) / bare).toFixed(2)}× bare; min ${fmtMs(Math.min(...ms))}, max ${fmtMs(Math.max(...ms))}); CPU ${fmtMs(cpu)} (${(cpu / bareCpu).toFixed(2)}× bare)`,
    );
  }
} finally {
  empty.cleanup();
  large.cleanup();
}
