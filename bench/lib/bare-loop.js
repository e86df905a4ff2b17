#!/usr/bin/env node
// The baseline of the `graph` benchmark: a bare Node loop spawning `true` for each stage whose dependencies
// completed, at most PARALLEL at once. `node bench/lib/bare-loop.js STAGES.json [--durable DB]` runs it in a fresh
// process and prints {"ms":N} (the benchmark does, every round: see bareLoopProcess there); bareLoop() runs it in
// this one. With --durable, each stage's end is also committed as one row to a SQLite file opened as a room opens
// its own (WAL, synchronous=FULL: one fsync per commit): the floor of a runner whose finished stages survive power loss.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export const PARALLEL = 2;
export const BARE_LOOP = path.join(import.meta.dirname, 'bare-loop.js');

/** The bare baseline: spawn `true` for each stage whose dependencies completed, at most PARALLEL at once. */
export async function bareLoop(stages, onExit = () => {}) {
  const t = performance.now();
  const waiting = new Map(stages.map((s) => [s.id, new Set(s.dependsOn)]));
  const dependents = new Map(stages.map((s) => [s.id, []]));
  for (const s of stages) for (const d of s.dependsOn) dependents.get(d).push(s.id);
  const ready = stages.filter((s) => s.dependsOn.length === 0).map((s) => s.id);
  let running = 0;
  let done = 0;
  await new Promise((resolve, reject) => {
    const pump = () => {
      while (running < PARALLEL && ready.length > 0) {
        const id = ready.shift();
        running++;
        const child = spawn('true', [], { stdio: 'ignore' });
        child.on('error', reject);
        child.on('exit', (code) => {
          onExit(id, code);
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
      }
    };
    pump();
  });
  return performance.now() - t;
}
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const stages = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const at = process.argv.indexOf('--durable');
  let onExit;
  if (at > 0) {
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const db = new Database(process.argv[at + 1]);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE IF NOT EXISTS ended (stage TEXT NOT NULL, code INTEGER, at INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO ended (stage, code, at) VALUES (?, ?, ?)');
    onExit = (id, code) => insert.run(id, code, Date.now());
  }
  await bareLoop(stages.slice(0, Math.min(stages.length, 20)), onExit); // warm the spawn path, as the room is warm
  console.log(JSON.stringify({ ms: await bareLoop(stages, onExit) }));
}
