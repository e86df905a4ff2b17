// The `startup` benchmark's room of a busy month (100,000 handoff cycles, 10,000 graphs; the event ring and the
// audit ring full, as they are after a few hundred calls: they keep the newest 2,000 events and 10,000 calls).
// Filling it runs
// the engine through every call and every graph's process (minutes on 2 cores), so the filled room is kept in
// bench/results/cache/ (not committed) and copied for later runs; its key covers what shapes it: the fill
// script and the sizes. A room cached by an older build is brought to the current schema by the first open
// (the benchmark's warm-up, not measured), as a user's room would be.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO } from './room.js';

const FILL_ROOM = path.join(import.meta.dirname, 'fill-room.js');
const CACHE = path.join(REPO, 'bench/results/cache');

function cacheKey(handoffs, graphs) {
  const hash = createHash('sha256');
  hash.update(fs.readFileSync(FILL_ROOM));
  hash.update(`${handoffs}/${graphs}`);
  return `history-${handoffs}h-${graphs}g-${hash.digest('hex').slice(0, 12)}`;
}

/**
 * Puts a room with `handoffs` handoff cycles run (each approved) and `graphs` ended graphs into `home` (a
 * makeHome() folder, still empty). `fresh` skips the cache. Returns what it holds (handoffs, events appended and
 * kept, audit rows, graphs), how it was made and how long it took.
 */
export function historyRoom(home, { handoffs, graphs, fresh = false }) {
  const started = performance.now();
  const made = makeRoom(home, { handoffs, graphs, fresh });
  // the room is ~100 MB just written (filled or copied): have the kernel write it out now, or its writeback
  // lands in the first measured starts (a room's first commit waits for the file system's journal)
  spawnSync('sync');
  return { ...made, seconds: (performance.now() - started) / 1000 };
}

/** Whether process `pid` is alive. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Where a process filling a room for the cache writes its pid (beside the cache, which a fill replaces whole). */
const fillingMarker = (key) => path.join(path.dirname(CACHE), `${key}.filling`);

/**
 * Waits while another process fills this room for the cache: a run started while a fill is under way copies its
 * room when it is done instead of filling a second one beside it.
 */
function awaitOtherFill(key, cached) {
  const marker = fillingMarker(key);
  const wait = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let pid = NaN;
    try {
      pid = Number(fs.readFileSync(marker, 'utf8').trim());
    } catch {
      return;
    }
    if (!alive(pid) || fs.existsSync(path.join(cached, 'filled.json'))) return;
    Atomics.wait(wait, 0, 0, 5000);
  }
}

function makeRoom(home, { handoffs, graphs, fresh }) {
  const key = cacheKey(handoffs, graphs);
  const cached = path.join(CACHE, key);
  if (!fresh) awaitOtherFill(key, cached);
  if (!fresh && fs.existsSync(path.join(cached, 'filled.json'))) {
    fs.cpSync(path.join(cached, 'home'), home.root, { recursive: true });
    return { ...JSON.parse(fs.readFileSync(path.join(cached, 'filled.json'), 'utf8')), cached: true };
  }
  const marker = fillingMarker(key);
  if (!fresh) {
    fs.mkdirSync(path.dirname(marker), { recursive: true });
    fs.writeFileSync(marker, String(process.pid));
  }
  const fill = spawnSync(process.execPath, [FILL_ROOM, home.roomFile, String(handoffs), String(graphs)], { env: home.env, encoding: 'utf8' });
  if (fill.status !== 0) {
    fs.rmSync(marker, { force: true });
    throw new Error(`filling the room failed: ${fill.stdout}${fill.stderr}`);
  }
  const filled = JSON.parse(fill.stdout.trim().split('\n').pop());
  if (!fresh) {
    // written aside and renamed, so an interrupted run never leaves a half room to be reused
    fs.rmSync(CACHE, { recursive: true, force: true }); // older keys are never read again
    const partial = `${cached}.partial`;
    fs.mkdirSync(partial, { recursive: true, mode: 0o700 });
    fs.cpSync(home.root, path.join(partial, 'home'), { recursive: true });
    fs.writeFileSync(path.join(partial, 'filled.json'), JSON.stringify(filled));
    fs.renameSync(partial, cached);
    fs.rmSync(marker, { force: true });
  }
  return { ...filled, cached: false };
}
