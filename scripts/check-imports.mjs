#!/usr/bin/env node
// The import rules of docs/architecture.md over the whole of src-main, run by `npm test`:
//  - no import cycles (type-only imports included: a loop of types is still a knot in the design);
//  - no import that runs back up a layer, or sideways between two folders of one layer.
// ESLint zones say the same per folder; this sees the whole graph (cycles are invisible to a per-file rule).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Each top folder of src-main and its layer, lowest first. Folders of one layer may not import each other. */
export const LAYERS = {
  common: 0,
  net: 1,
  engine: 2,
  mcp: 3,
  api: 3,
  bridge: 3,
  server: 4,
  testing: 4,
  cli: 5,
  app: 5,
};

const IMPORT = /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Strips comments so an import named in a comment is not an edge (string contents are left alone). */
function withoutComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function resolveImport(from, specifier, files) {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.mts`, path.join(base, 'index.ts')]) {
    if (files.has(candidate)) return candidate;
  }
  return null;
}

/** The relative import graph of a folder: file → files it imports. */
export function importGraph(rootDir) {
  const root = path.resolve(rootDir);
  const files = new Set(sourceFiles(root));
  const graph = new Map();
  for (const file of files) {
    const text = withoutComments(fs.readFileSync(file, 'utf8'));
    const targets = new Set();
    for (const m of text.matchAll(IMPORT)) {
      const specifier = m[1] ?? m[2];
      if (!specifier?.startsWith('.')) continue;
      const target = resolveImport(file, specifier, files);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Strongly connected components of more than one file (or a file importing itself): the cycles. */
function cyclesOf(graph) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const cycles = [];
  const strongConnect = (v) => {
    meta.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!meta.has(w)) {
        strongConnect(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) strongConnect(v);
  return cycles;
}

const layerOf = (root, file) => path.relative(root, file).split(path.sep)[0];

/** Every violation in a tree: `cycles` (lists of files) and `upward` (importer → imported, with their layers). */
export function checkImports(rootDir, layers = LAYERS) {
  const root = path.resolve(rootDir);
  const graph = importGraph(root);
  const upward = [];
  const unknown = new Set();
  for (const [from, targets] of graph) {
    const a = layerOf(root, from);
    if (!(a in layers)) {
      if (a.includes('.')) continue; // a file at the top of the tree belongs to no layer
      unknown.add(a);
      continue;
    }
    for (const to of targets) {
      const b = layerOf(root, to);
      if (a === b || !(b in layers)) continue;
      if (layers[b] >= layers[a]) upward.push({ from: path.relative(root, from), to: path.relative(root, to), fromLayer: a, toLayer: b });
    }
  }
  const cycles = cyclesOf(graph).map((c) => c.map((f) => path.relative(root, f)));
  return { files: graph.size, cycles, upward, unknownFolders: [...unknown] };
}

export function describe(result) {
  const lines = [];
  for (const c of result.cycles) lines.push(`import cycle: ${c.join(' → ')}`);
  for (const u of result.upward) lines.push(`${u.from} imports ${u.to}: ${u.fromLayer}/ may not import ${u.toLayer}/ (same or higher layer)`);
  for (const f of result.unknownFolders) lines.push(`src-main/${f}/ is in no layer: add it to LAYERS in scripts/check-imports.mjs (and eslint.config.js)`);
  return lines;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src-main'));
  const result = checkImports(root);
  const problems = describe(result);
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    console.error(`check-imports: ${problems.length} problem(s) in ${result.files} files`);
    process.exit(1);
  }
  console.log(`check-imports: ${result.files} files, no cycles, no import up a layer`);
}
