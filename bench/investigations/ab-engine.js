#!/usr/bin/env node
// An A/B of two builds of the engine in one process, without HTTP: for hot-path fixes whose effect is
// smaller than the noise of a loaded machine's HTTP round trips. usage: node bench/investigations/ab-engine.js OUT_BEFORE OUT_AFTER
// (each an `out/` folder of `npm run build`; copy the "before" one inside this checkout so node_modules resolve).
// AB_ONLY=TEXT runs only the rows whose name contains TEXT.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { alternate, fmtMs, percentile } from '../lib/stats.js';

const [beforeDir, afterDir] = process.argv.slice(2).map((d) => path.resolve(d));
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-ab-'));

async function open(label, outDir) {
  const { Engine, Room } = await import(path.join(outDir, 'main/bench-entry.js'));
  const paths = { dataDir: path.join(root, label, 'data'), configDir: path.join(root, label, 'config') };
  fs.mkdirSync(path.join(root, label), { recursive: true, mode: 0o700 });
  const engine = await Engine.start(Room.open({ markdown: path.join(root, label, 'room.md'), paths }));
  const operator = engine.operator();
  const token = fs.readFileSync(engine.room.operatorTokenFile, 'utf8').trim();
  const { shell } = await engine.call(operator, 'shell_open', { shell: '/bin/sh', args: [], env: { PS1: '$ ' } });
  await engine.call(operator, 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: '\\$ $', timeoutMs: 10_000 } });
  const { token: agentToken } = await engine.call(operator, 'participant_add', { name: 'agent', capabilities: ['read', 'write'] });
  return { label, engine, operator, agent: engine.authenticate(agentToken), token, shellId: shell.id };
}

const timed = async (n, fn) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times;
};
const roundtrip = (s) => () =>
  s.engine.call(s.operator, 'shell_io', { shellId: s.shellId, text: 'echo tok\n', wait: { until: 'match', pattern: '(^|\\$ )tok\\r?$' }, maxBytes: 1024 });
// what every request does before and in room_info: the token lookup, then the call, then its turn's audit flush
const authAndInfo = (s) => async () => {
  s.engine.authenticate(s.token);
  await s.engine.call(s.operator, 'room_info', {});
  await new Promise((resolve) => setImmediate(resolve));
};

// the handoff-cycle benchmark's four calls (each one commit, fsynced) and every call's audit row
const handoffCycle = (s) => async () => {
  const { handoff } = await s.engine.call(s.operator, 'handoff_create', { summary: 'benchmark cycle', to: 'agent' });
  await s.engine.call(s.agent, 'handoff_accept', { handoffId: handoff.id });
  await s.engine.call(s.agent, 'handoff_complete', { handoffId: handoff.id, result: 'done' });
  await s.engine.call(s.operator, 'handoff_approve', { handoffId: handoff.id });
  await new Promise((resolve) => setImmediate(resolve)); // the audit flush of the turn
};

const before = await open('before', beforeDir);
const after = await open('after', afterDir);
try {
  for (const [name, make, n, rounds] of [
    ['shell_io echo tok → match', roundtrip, 40, 6],
    ['authenticate + room_info', authAndInfo, 2000, 6],
    ['handoff cycle (4 calls, 4 commits)', handoffCycle, 200, 6],
  ].filter(([name]) => !process.env.AB_ONLY || name.includes(process.env.AB_ONLY))) {
    await timed(Math.min(n, 20), make(before));
    await timed(Math.min(n, 20), make(after));
    const r = await alternate(rounds, () => timed(n, make(after)), () => timed(n, make(before)));
    const a = r.ours.flat();
    const b = r.baseline.flat();
    console.log(
      `${name}: before p50 ${fmtMs(percentile(b, 50))} p99 ${fmtMs(percentile(b, 99))} → after p50 ${fmtMs(percentile(a, 50))} p99 ${fmtMs(percentile(a, 99))} (${a.length} calls each)`,
    );
  }
} finally {
  await before.engine.close();
  await after.engine.close();
  fs.rmSync(root, { recursive: true, force: true });
}
