#!/usr/bin/env node
// What of a large answer outlives a young-generation collection run right after it, with no server at all: each
// step of building a room-shaped `shell_io` answer of a 1 MiB page (the output decoded from a ring, the JSON text
// block, the message around it, undici's `Response.json` and reading its body), a forced young collection after
// each page, and the old generation's growth per page. Nothing reaches these pages once built, so whatever the old
// generation gains was kept by the young collector alone; only a full collection frees it. What
// kept the room's own pages this way turned out to be a getter in an object literal (getter-promotion.js); a
// collection forced at a quiet moment, as here, does not show that.
// usage: node bench/investigations/young-survivors.js [PAGES]
import v8 from 'node:v8';
import vm from 'node:vm';
import { Buffer } from 'node:buffer';
import { setImmediate } from 'node:timers';

const { Response } = globalThis;

const pages = Number(process.argv[2] ?? 50);
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc');
v8.setFlagsFromString('--no-expose-gc');
const oldMiB = () => v8.getHeapSpaceStatistics().filter((s) => s.space_name.startsWith('old') || s.space_name === 'large_object_space').reduce((sum, s) => sum + s.space_used_size, 0) / 2 ** 20;
const ring = Buffer.alloc(2 * 2 ** 20, 'y');

/** The steps of an answer, each doing the ones before it too. */
const STEPS = {
  'output string': (output) => output.length,
  'JSON of the output alone': (output) => JSON.stringify(output).length,
  'text block (JSON of the result)': (output, result) => JSON.stringify(result).length,
  'message (the text block, then JSON of the message)': (output, result, id) => JSON.stringify(message(result, id)).length,
  'Response.json of the message, body read': async (output, result, id) => {
    const reader = Response.json(message(result, id)).body.getReader();
    while (!(await reader.read()).done);
  },
};
const message = (result, id) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result } });

for (const [name, step] of Object.entries(STEPS)) {
  collect();
  await new Promise((resolve) => setImmediate(resolve));
  const before = oldMiB();
  for (let i = 0; i < pages; i++) {
    const output = ring.subarray(i % 7, (i % 7) + 2 ** 20).toString('utf8');
    const result = { shellId: 'sh_0', output, cursor: `c${i}`, nextCursor: `n${i}`, more: true, truncated: false };
    await step(output, result, i);
    await new Promise((resolve) => setImmediate(resolve));
    collect({ type: 'minor' });
  }
  console.log(`${name.padEnd(52)} old generation +${((oldMiB() - before) / pages).toFixed(2)} MB per page`);
}
