#!/usr/bin/env node
// How long the room takes to write one 1 MiB page of shell output into a tool answer's bytes (text-splices:
// the output escaped once for structuredContent and twice for the JSON text block), for three kinds of output:
// one character repeated (a `yes`-style flood: nothing to escape), build-log-like lines (quotes, backslashes,
// CRLF), and coloured output (an ESC every few bytes). Each git revision given is timed in turn, alternating
// (its src-main/mcp/splices/text-splices.ts, which imports nothing but node:crypto, transpiled with TypeScript); by
// default the working tree's file.
// usage: node bench/investigations/splice-escape.js [REV...]   (e.g. `node bench/investigations/splice-escape.js 967f50c~1 HEAD`)
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import ts from 'typescript';
import { median } from '../lib/stats.js';

const FILE = 'src-main/mcp/splices/text-splices.ts';
const REPO = path.resolve(import.meta.dirname, '../..');
const revs = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['working tree'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'splice-escape-'));
const builds = [];
try {
  for (const [i, rev] of revs.entries()) {
    const source = rev === 'working tree' ? fs.readFileSync(path.join(REPO, FILE), 'utf8') : execFileSync('git', ['show', `${rev}:${FILE}`], { cwd: REPO, encoding: 'utf8' });
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    const file = path.join(tmp, `text-splices-${i}.mjs`);
    fs.writeFileSync(file, js);
    builds.push({ rev, TextSplices: (await import(file)).TextSplices, ms: {} });
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}

const MiB = 1 << 20;
const repeat = (line) => line.repeat(Math.ceil(MiB / line.length)).slice(0, MiB);
const pages = {
  'one character': 'y'.repeat(MiB),
  'build log': repeat('src/engine/x.ts:12:3 - warning: "value" is not C:\\path\\to\\file ok\r\n'),
  coloured: repeat('\u001b[32m✔\u001b[0m test \u001b[1mpasses\u001b[22m in 3 ms\r\n'),
};

/** One answer as the SDK shapes a tool result (structured content, and the same object as a JSON text block), spliced. */
function answer(TextSplices, output) {
  const splices = new TextSplices();
  const held = splices.holdIn({ shellId: 'sh_1', output });
  const json = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: JSON.stringify(held) }], structuredContent: held } }));
  let bytes = 0;
  for (const piece of splices.splice(json)) bytes += piece.length;
  splices.release();
  return bytes;
}

const ROUNDS = 5;
const PER_ROUND = 20;
for (const [kind, output] of Object.entries(pages)) {
  for (const b of builds) answer(b.TextSplices, output); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
      const t = performance.now();
      for (let k = 0; k < PER_ROUND; k++) answer(b.TextSplices, output);
      (b.ms[kind] ??= []).push((performance.now() - t) / PER_ROUND);
    }
  }
}
for (const b of builds) {
  console.log(`${b.rev}: ${Object.entries(b.ms).map(([kind, ms]) => `${kind} ${median(ms).toFixed(2)} ms`).join(', ')} per 1 MiB page (median of ${ROUNDS} rounds)`);
}
