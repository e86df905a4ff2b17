#!/usr/bin/env node
// What made the room promote nearly every shell page it answered, with no room: a
// loop decodes 1 MiB pages from a buffer, one every 2 ms, and hands each to a small object that reaches it through
// a closure — a plain field, a getter on a class, or a getter in an object literal (what the engine's call context
// was until daa2895). V8 makes a literal's getter pair in the old generation, once per evaluation; an old object is
// a root for every young collection, so whatever its getter reaches survives them all and is promoted, to wait for
// a full collection. Each shape runs in a child process with --trace-gc-nvp; the young collections' allocated and
// promoted bytes are summed. Natural collections only: one forced at a quiet moment does not show it.
// usage: node bench/investigations/getter-promotion.js [PAGES]
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SHAPES = ['field', 'class getter', 'literal getter'];

if (process.argv[2] === '--child') {
  const shape = process.argv[3];
  const pages = Number(process.argv[4]);
  const ring = Buffer.alloc(64 * 2 ** 20, 'y');
  class Holder {
    constructor(get) {
      this.get = get;
    }

    get page() {
      return this.get();
    }
  }
  let sink = 0;
  for (let i = 0; i < pages; i++) {
    const at = (i * 2 ** 20) % (63 * 2 ** 20);
    const page = ring.subarray(at, at + 2 ** 20).toString('utf8');
    const get = () => page;
    const holder = shape === 'field' ? { page } : shape === 'class getter' ? new Holder(get) : { get page() { return get(); } };
    sink += holder.page.length;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  if (sink === 0) process.exitCode = 1;
} else {
  const pages = process.argv[2] ?? '300';
  for (const shape of SHAPES) {
    const run = spawnSync(process.execPath, ['--trace-gc-nvp', fileURLToPath(import.meta.url), '--child', shape, pages], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    let allocated = 0;
    let promoted = 0;
    for (const line of run.stdout.split('\n')) {
      if (!/\bgc=s\b/.test(line)) continue;
      allocated += Number(/\ballocated=(\d+)/.exec(line)?.[1] ?? 0);
      promoted += Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0);
    }
    const share = allocated > 0 ? `${((promoted / allocated) * 100).toFixed(0)} %` : 'n/a';
    console.log(`${shape.padEnd(16)} young collections: ${(allocated / 2 ** 20).toFixed(0)} MiB allocated, ${(promoted / 2 ** 20).toFixed(0)} MiB promoted (${share})`);
  }
}
