#!/usr/bin/env node
// Where start-up time goes: `commonroom serve` (an empty room, or one with history) and the bare server, each
// run with --cpu-prof until its first answered call; samples after that answer are cut off (V8's profile clock
// and process.hrtime are both the monotonic clock), then self time is summed by function and by package/chunk.
// usage: node bench/investigations/profile-startup.js [TOP] [HANDOFFS] [GRAPHS]   (BENCH_KEEP_PROFILE=DIR keeps the profiles)
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { bareStartup, oursStartup } from '../benchmarks/startup.js';
import { makeHome } from '../lib/room.js';
import { summarize } from '../lib/profiles.js';

const [top = '30', handoffs = '0', graphs = '0'] = process.argv.slice(2);

/** Where a frame's code lives: a package in node_modules, one of our chunks, or Node's own modules. */
function where(url) {
  if (!url) return '(vm)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  if (url.startsWith('node:')) return 'node:internals';
  if (url.includes('/out/main/')) return `ours ${path.basename(url).replace(/-[\w-]{8}\.js$/, '')}`;
  return path.basename(url);
}

/** Cut a profile at `endUs` (monotonic µs) and return it with self time by package. */
function cut(profile, endUs) {
  let t = profile.startTime;
  let n = 0;
  while (n < profile.samples.length && t + (profile.timeDeltas[n] ?? 0) <= endUs) t += profile.timeDeltas[n++];
  return { ...profile, samples: profile.samples.slice(0, n), timeDeltas: profile.timeDeltas.slice(0, n), endTime: t };
}

function byPackage(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const sums = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const f = byId.get(profile.samples[i]).callFrame;
    const key = f.functionName === '(idle)' ? '(idle)' : ['(program)', '(garbage collector)'].includes(f.functionName) ? f.functionName : where(f.url);
    sums.set(key, (sums.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  console.log('by package/chunk (ms, self):');
  for (const [k, us] of [...sums].sort((a, b) => b[1] - a[1])) console.log(`  ${(us / 1000).toFixed(1).padStart(7)}  ${k}`);
  // Node's own code charged to the nearest caller of ours or of a package (module loading has no such caller:
  // it is charged to the loader function nearest the root)
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const charged = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    let key;
    const chain = [];
    for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) chain.push(byId.get(id).callFrame);
    const own = chain.find((f) => f.url && !f.url.startsWith('node:'));
    if (chain[0].functionName === '(idle)') continue;
    if (own) key = where(own.url);
    else {
      const named = chain.filter((f) => f.functionName && f.functionName !== '(root)');
      key = `node: ${named.at(-1)?.functionName ?? chain[0].functionName} > ${named.at(-2)?.functionName ?? ''}`;
    }
    charged.set(key, (charged.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  console.log('charged to the nearest own/package caller (ms):');
  for (const [k, us] of [...charged].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(us / 1000).toFixed(1).padStart(7)}  ${k}`);
}

async function profiled(label, run) {
  const home = makeHome(`prof-${label}`);
  const dir = path.join(home.root, 'prof');
  try {
    let end = 0n;
    await run(home, dir, () => (end = process.hrtime.bigint()));
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (process.env.BENCH_KEEP_PROFILE) fs.copyFileSync(path.join(dir, file), path.join(process.env.BENCH_KEEP_PROFILE, `${label}.cpuprofile`));
    const profile = cut(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), Number(end / 1000n));
    summarize(`${label} (until the first answer)`, profile, Number(top));
    byPackage(profile);
  } finally {
    home.cleanup();
  }
}

await profiled('ours', async (home, dir, answered) => {
  await oursStartup(home); // create the room: what is profiled is reopening it
  if (Number(handoffs) > 0 || Number(graphs) > 0) {
    const fill = spawnSync(process.execPath, [path.join(import.meta.dirname, '../lib/fill-room.js'), home.roomFile, handoffs, graphs], { env: home.env, encoding: 'utf8' });
    if (fill.status !== 0) throw new Error(`filling the room failed: ${fill.stdout}${fill.stderr}`);
  }
  await oursStartup({ ...home, nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir], onAnswer: answered });
});
await profiled('bare', async (_home, dir, answered) => {
  await bareStartup(false, { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir], onAnswer: answered });
});
