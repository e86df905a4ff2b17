#!/usr/bin/env node
// The baselines of the `graph` benchmark, each a bare Node loop spawning `true` for each stage whose dependencies
// completed, at most PARALLEL at once. `node bench/lib/bare-loop.js STAGES.json [--floor DIR]` runs one in a fresh
// process and prints {"ms":N} (the benchmark does, every round: see bareLoopProcess there).
// - Bare: `spawn('true', [], { stdio: 'ignore' })` and nothing else: the baseline.
// - --floor DIR: what any runner must do that keeps a stage's output, can end its whole process tree, and never
//   leaves a started process unrecorded after a power loss. Each stage runs in its own session (detached) with
//   its stdout and stderr piped into a log file of its own; the stages a turn starts, and the ends seen since the
//   last turn, are committed first in ONE transaction to a SQLite file opened as a room opens its own (WAL,
//   synchronous=FULL: one fsync per commit), and only then spawned. Nothing more: no scheduler state, no events,
//   no process that spawns for it. The room's graphs do all of this and more; this is their physical floor.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export const PARALLEL = 2;
export const BARE_LOOP = path.join(import.meta.dirname, 'bare-loop.js');

/** The baseline: nothing but the spawns. */
const bare = {
  beforeSpawn() {},
  spawn: (_id, ended) => spawn('true', [], { stdio: 'ignore' }).on('exit', ended),
  finish() {},
};

/** The floor (see the top of this file): logs, sessions, and each start committed with an fsync before its spawn. */
function floor(dir) {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(path.join(dir, 'floor-loop.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS stages (run INTEGER NOT NULL, id TEXT NOT NULL, state TEXT NOT NULL, code INTEGER, at INTEGER NOT NULL, PRIMARY KEY (run, id))');
  // each loop run is a run of its own (the warm-up's stages come again): its rows, its log folder
  let run = 0;
  let logs = '';
  const nextRun = () => {
    run = Date.now() * 1000 + Math.floor(Math.random() * 1000);
    logs = fs.mkdtempSync(path.join(dir, 'floor-logs-'));
  };
  nextRun();
  const start = db.prepare("INSERT INTO stages (run, id, state, at) VALUES (?, ?, 'running', ?)");
  const end = db.prepare("UPDATE stages SET state = 'ended', code = ?, at = ? WHERE run = ? AND id = ?");
  let ends = [];
  const commit = db.transaction((starts) => {
    for (const [id, code] of ends) end.run(code, Date.now(), run, id);
    for (const id of starts) start.run(run, id, Date.now());
    ends = [];
  });
  return {
    beforeSpawn: (ids) => commit.immediate(ids),
    spawn(id, ended) {
      const log = fs.openSync(path.join(logs, `${id}.log`), 'wx');
      const child = spawn('true', [], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      for (const pipe of [child.stdout, child.stderr]) pipe.on('data', (chunk) => fs.writeSync(log, chunk));
      // 'close': it exited and its pipes closed (whatever inherited them is done writing too)
      child.on('close', (code) => {
        fs.closeSync(log);
        ends.push([id, code]);
        ended(code);
      });
      return child;
    },
    finish() {
      commit.immediate([]);
      nextRun();
    },
  };
}

/** Runs the stages with `runner` (bare, or the floor); resolves with the milliseconds it took. */
export async function bareLoop(stages, runner = bare) {
  const t = performance.now();
  const waiting = new Map(stages.map((s) => [s.id, new Set(s.dependsOn)]));
  const dependents = new Map(stages.map((s) => [s.id, []]));
  for (const s of stages) for (const d of s.dependsOn) dependents.get(d).push(s.id);
  const ready = stages.filter((s) => s.dependsOn.length === 0).map((s) => s.id);
  let running = 0;
  let done = 0;
  await new Promise((resolve, reject) => {
    const pump = () => {
      const starts = ready.splice(0, PARALLEL - running);
      runner.beforeSpawn(starts);
      for (const id of starts) {
        running++;
        const child = runner.spawn(id, () => {
          running--;
          done++;
          for (const d of dependents.get(id)) {
            const w = waiting.get(d);
            w.delete(id);
            if (w.size === 0) ready.push(d);
          }
          if (done === stages.length) resolve();
          else pump();
        });
        child.on('error', reject);
      }
    };
    pump();
  });
  runner.finish();
  return performance.now() - t;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const stages = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const at = process.argv.indexOf('--floor');
  const runner = at > 0 ? floor(process.argv[at + 1]) : bare;
  await bareLoop(stages.slice(0, Math.min(stages.length, 20)), runner); // warm the spawn path, as the room is warm
  console.log(JSON.stringify({ ms: await bareLoop(stages, runner) }));
}
