#!/usr/bin/env node
// What holds what a room gained between two heap snapshots (idle-shells.js with SNAPSHOT_DIR): each snapshot's
// objects summed by what they are and by the nearest object
// of a class of the room's or node-pty's that holds them (walking back the first retainer that is not a weak,
// shortcut or code link), per shell. Says which of a shell's own objects its bytes hang from.
//
//   SNAPSHOT=40 SNAPSHOT_DIR=/tmp/snap node bench/investigations/idle-shells.js 100 35
//   node bench/investigations/heap-diff.js /tmp/snap 100 [ROWS=40]
import fs from 'node:fs';
import path from 'node:path';

const [dir, shellsArg, rowsArg] = process.argv.slice(2);
const SHELLS = Number(shellsArg ?? 100);
const ROWS = Number(rowsArg ?? 40);
/** Classes a shell's bytes are charged to: the first of these found walking back from an object. */
const HOLDERS = /^(PtyShell|ScrollbackRing|ScreenMirror|ShellStatusTracker|OscScanner|ShellMarks|ShellViewers|QueryScanner|UnixTerminal|ReadStream|Socket|TTY|ShellRegistry|NodePtyTerminal|Map|Set)$/;

function load(file) {
  const snap = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const f = (name) => meta.node_fields.indexOf(name);
  const e = (name) => meta.edge_fields.indexOf(name);
  return { snap, meta, nf, ef, type: f('type'), name: f('name'), id: f('id'), size: f('self_size'), edges: f('edge_count'), etype: e('type'), ename: e('name_or_index'), eto: e('to_node') };
}

/**
 * Each snapshot summed by what its objects are and by what holds them. Not a diff by object id: V8 gives a new
 * object at the address of one that died since the last snapshot that one's id, so about half the new objects
 * read as old. The sums of the two snapshots are subtracted instead.
 */
function sums(file) {
  const a = load(file);
  const { nodes, edges, strings } = a.snap;
  const nodeTypes = a.meta.node_types[0];
  const edgeTypes = a.meta.edge_types[0];
  const count = nodes.length / a.nf;
  // each node's retainer on a shortest path from the roots (breadth first over strong edges: not weak, not a
  // shortcut), as DevTools walks them: the holder of an object is then the one nearest the roots, not whichever
  // edge to it the snapshot happens to list first
  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0; n < count; n++) firstEdge[n + 1] = firstEdge[n] + nodes[n * a.nf + a.edges] * a.ef;
  const firstRetainer = new Int32Array(count).fill(-1);
  const retainEdge = new Array(count);
  const queue = new Int32Array(count);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  firstRetainer[0] = 0;
  while (head < tail) {
    const n = queue[head++];
    for (let edgeAt = firstEdge[n]; edgeAt < firstEdge[n + 1]; edgeAt += a.ef) {
      const t = edgeTypes[edges[edgeAt + a.etype]];
      if (t === 'weak' || t === 'shortcut') continue;
      const to = edges[edgeAt + a.eto] / a.nf;
      if (firstRetainer[to] !== -1) continue;
      firstRetainer[to] = n;
      const nm = edges[edgeAt + a.ename];
      retainEdge[to] = t === 'element' || t === 'hidden' ? `[${nm}]` : strings[nm];
      queue[tail++] = to;
    }
  }
  firstRetainer[0] = -1;
  const typeOf = (n) => nodeTypes[nodes[n * a.nf + a.type]];
  const nameOf = (n) => strings[nodes[n * a.nf + a.name]];
  const label = (n) => {
    const t = typeOf(n);
    if (t === 'string' || t === 'concatenated string' || t === 'sliced string') return `${t}`;
    if (t === 'code') return `${t} ${nameOf(n).startsWith('(code for') ? '(code for …)' : nameOf(n).slice(0, 50)}`;
    return `${t} ${nameOf(n).slice(0, 50)}`;
  };
  /** The nearest holder class walking back, with the edge name the chain entered it by. */
  const holderOf = (n) => {
    if (typeOf(n) === 'object' && HOLDERS.test(nameOf(n))) return `${nameOf(n)} itself`;
    let via = retainEdge[n];
    for (let at = firstRetainer[n], depth = 0; at >= 0 && depth < 12; at = firstRetainer[at], depth++) {
      if (typeOf(at) === 'object' && HOLDERS.test(nameOf(at))) return `${nameOf(at)}.${via}`;
      if (typeOf(at) === 'code') return '(code)';
      via = retainEdge[at];
    }
    return '(other)';
  };
  /** The chain of first retainers from `n` up, for EXAMPLES (names and the edges between them). */
  const chain = (n) => {
    const out = [label(n)];
    for (let at = firstRetainer[n], via = retainEdge[n], depth = 0; at >= 0 && depth < 14; via = retainEdge[at], at = firstRetainer[at], depth++) out.push(`-${via}-> ${label(at)}`);
    return out.join(' ');
  };
  const examples = [];
  const byKind = new Map();
  const byHolder = new Map();
  let total = 0;
  for (let n = 0; n < count; n++) {
    const size = nodes[n * a.nf + a.size];
    total += size;
    const holder = typeOf(n) === 'code' ? '(code)' : holderOf(n);
    if (holder === process.env.EXAMPLES && examples.length < 400 && n % 7 === 0) examples.push(chain(n));
    for (const [map, key] of [[byKind, label(n)], [byHolder, holder]]) {
      const s = map.get(key) ?? { count: 0, size: 0 };
      s.count++;
      s.size += size;
      map.set(key, s);
    }
  }
  return { total, byKind, byHolder, examples };
}

const before = sums('before.heapsnapshot');
const after = sums('after.heapsnapshot');
const minus = (x, y) => new Map([...new Set([...x.keys(), ...y.keys()])].map((k) => [k, { count: (x.get(k)?.count ?? 0) - (y.get(k)?.count ?? 0), size: (x.get(k)?.size ?? 0) - (y.get(k)?.size ?? 0) }]));
const byKind = minus(after.byKind, before.byKind);
const byHolder = minus(after.byHolder, before.byHolder);
const total = after.total - before.total;
// EXAMPLES='Map.table': some chains of what that holder holds, in the second snapshot
if (process.env.EXAMPLES) for (const line of after.examples.slice(0, Number(process.env.EXAMPLE_COUNT ?? 12))) console.log(line);
const show = (title, map) => {
  console.log(title);
  for (const [k, v] of [...map].sort((x, y) => y[1].size - x[1].size).slice(0, ROWS)) console.log(`${(v.size / SHELLS).toFixed(0).padStart(7)} B ${(v.count / SHELLS).toFixed(2).padStart(7)}×  ${k}`);
};
console.log(`the heap grew by ${(total / SHELLS / 1024).toFixed(1)} KiB a shell`);
show('by what they are, per shell:', byKind);
show('by what holds them (the nearest shell object, and the field), per shell:', byHolder);
