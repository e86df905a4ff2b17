// The `handoff-list` benchmark's rooms: N ended handoffs written by bench/lib/fill-handoffs.js. A million take
// minutes and a gigabyte, so each size is kept in bench/results/lists-cache/ (not committed) and copied for later
// runs; its key covers the fill script and the size. A room cached by an older build is brought to the current
// schema by its first open, as a user's room would be.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO } from './room.js';

const FILL = path.join(import.meta.dirname, 'fill-handoffs.js');
const CACHE = path.join(REPO, 'bench/results/lists-cache');

const keyOf = (count) => `handoffs-${count}-${createHash('sha256').update(fs.readFileSync(FILL)).digest('hex').slice(0, 12)}`;

/** Puts a room holding `count` ended handoffs into `home` (a makeHome() folder, still empty); `fresh` skips the cache. */
export function handoffRoom(home, count, { fresh = false } = {}) {
  const started = performance.now();
  const cached = path.join(CACHE, keyOf(count));
  let made;
  if (!fresh && fs.existsSync(path.join(cached, 'filled.json'))) {
    fs.cpSync(path.join(cached, 'home'), home.root, { recursive: true });
    made = { ...JSON.parse(fs.readFileSync(path.join(cached, 'filled.json'), 'utf8')), cached: true };
  } else {
    const fill = spawnSync(process.execPath, [FILL, home.roomFile, String(count)], { env: home.env, encoding: 'utf8' });
    if (fill.status !== 0) throw new Error(`filling the room failed: ${fill.stdout}${fill.stderr}`);
    made = { ...JSON.parse(fill.stdout.trim().split('\n').pop()), cached: false };
    if (!fresh) {
      // written aside and renamed, so an interrupted run never leaves a half room to be reused; other keys of
      // this size (an older fill script) are never read again
      for (const old of fs.existsSync(CACHE) ? fs.readdirSync(CACHE) : []) if (old.startsWith(`handoffs-${count}-`)) fs.rmSync(path.join(CACHE, old), { recursive: true, force: true });
      const partial = `${cached}.partial`;
      fs.mkdirSync(partial, { recursive: true, mode: 0o700 });
      fs.cpSync(home.root, path.join(partial, 'home'), { recursive: true });
      fs.writeFileSync(path.join(partial, 'filled.json'), JSON.stringify(made));
      fs.renameSync(partial, cached);
    }
  }
  spawnSync('sync');
  return { ...made, seconds: (performance.now() - started) / 1000 };
}
