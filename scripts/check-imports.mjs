#!/usr/bin/env node
// The import rules of docs/architecture.md over the whole of src-main, run by `npm test`:
//  - no import cycles (type-only imports included: a loop of types is still a knot in the design);
//  - no import that runs back up a layer, or sideways between two folders of one layer.
//  - inside engine/ and mcp/, the same for their sub-folders in a declared order (INNER_LAYERS), the files at
//    their root listed (ROOT_FILES) and above every sub-folder, and a feature folder met only through its
//    index.ts face (FACES).
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

/**
 * Inside a top folder, its sub-folders' order, lowest first: a sub-folder imports only lower ones, never one of
 * its own rank or above (docs/architecture.md, "Inside the engine"). The files at the folder's root are above
 * them all: they compose the sub-folders, and no sub-folder imports them.
 *  - engine/: plain helpers (platform, store, terminal) < core < process < room (opening a room, and the
 *    feature context every feature is handed) < people < the features that stand alone (tasks, shells,
 *    workspaces) < those that use them (handoffs, graphs) < agents, the one feature that calls other features,
 *    through Engine.call (a closure engine.ts hands it), never by import < schedules, which starts graphs and
 *    agents on their due times (through Engine.call too), and spend (envelopes stop agents and graphs the same way;
 *    it knows the agents' live runs through a closure engine.ts hands it) < summary, which reads every feature the same way
 *    (Engine.readInside).
 *  - mcp/: transport < splices < tasks (both dialects) < surface (what the server offers: tools, resources,
 *    answers) < eras (each protocol era's handler) < endpoint.ts.
 */
export const INNER_LAYERS = {
  engine: { platform: 0, store: 0, terminal: 0, core: 1, process: 2, room: 3, people: 4, tasks: 5, shells: 5, workspaces: 5, handoffs: 6, graphs: 6, hosts: 6, agents: 7, schedules: 8, spend: 8, summary: 9 },
  mcp: { transport: 0, splices: 1, tasks: 2, surface: 3, eras: 4 },
};

/** The loose files each layered folder may hold at its root (everything else lives in a sub-folder). */
export const ROOT_FILES = {
  engine: ['engine.ts', 'features.ts', 'index.ts', 'ports.ts'],
  mcp: ['endpoint.ts'],
};

/**
 * Feature folders met only through their face: a file outside the folder imports its index.ts, nothing else
 * in it (the face says what the feature owns and what its siblings may use).
 */
export const FACES = {
  engine: ['people', 'room', 'tasks', 'shells', 'workspaces', 'handoffs', 'graphs', 'hosts', 'agents', 'schedules', 'spend', 'summary'],
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

/**
 * The order inside each layered folder: `inward` (a sub-folder importing one of its own rank or above, or a root
 * file), `pastFace` (a feature's inside imported from outside it), `loose` (a root file not listed) and
 * `unknownInner` (a sub-folder in no rank).
 */
export function checkInnerLayers(rootDir, inner = INNER_LAYERS, rootFiles = ROOT_FILES, faces = FACES, graph = importGraph(rootDir)) {
  const root = path.resolve(rootDir);
  const inward = [];
  const pastFace = [];
  const loose = [];
  const unknown = new Set();
  /** [top folder, sub-folder or null for a root file, file name] of a file, or null outside a layered folder. */
  const placeOf = (file) => {
    const parts = path.relative(root, file).split(path.sep);
    if (!(parts[0] in inner) || parts.length < 2) return null;
    return { top: parts[0], sub: parts.length === 2 ? null : parts[1], rest: parts.slice(2).join('/'), name: parts.at(-1) };
  };
  for (const [from, targets] of graph) {
    const a = placeOf(from);
    if (!a) continue;
    const ranks = inner[a.top];
    if (a.sub === null) {
      if (!(rootFiles[a.top] ?? []).includes(a.name)) loose.push(path.relative(root, from));
      continue;
    }
    if (!(a.sub in ranks)) {
      unknown.add(`${a.top}/${a.sub}`);
      continue;
    }
    for (const to of targets) {
      const b = placeOf(to);
      if (!b || b.top !== a.top || b.sub === a.sub) continue;
      const rel = { from: path.relative(root, from), to: path.relative(root, to), fromFolder: `${a.top}/${a.sub}` };
      if (b.sub === null) inward.push({ ...rel, toFolder: a.top });
      else if (!(b.sub in ranks) || ranks[b.sub] >= ranks[a.sub]) inward.push({ ...rel, toFolder: `${a.top}/${b.sub}` });
      else if ((faces[a.top] ?? []).includes(b.sub) && b.rest !== 'index.ts') pastFace.push({ ...rel, toFolder: `${a.top}/${b.sub}` });
    }
  }
  // a root file may use a feature's inside only through its face too
  for (const [from, targets] of graph) {
    const a = placeOf(from);
    if (!a || a.sub !== null) continue;
    for (const to of targets) {
      const b = placeOf(to);
      if (b && b.top === a.top && b.sub !== null && (faces[a.top] ?? []).includes(b.sub) && b.rest !== 'index.ts') {
        pastFace.push({ from: path.relative(root, from), to: path.relative(root, to), fromFolder: a.top, toFolder: `${a.top}/${b.sub}` });
      }
    }
  }
  return { inward, pastFace, loose, unknownInner: [...unknown] };
}

export function describe(result) {
  const lines = [];
  for (const c of result.cycles) lines.push(`import cycle: ${c.join(' → ')}`);
  for (const u of result.upward) lines.push(`${u.from} imports ${u.to}: ${u.fromLayer}/ may not import ${u.toLayer}/ (same or higher layer)`);
  for (const u of result.inward ?? []) lines.push(`${u.from} imports ${u.to}: ${u.fromFolder}/ may not import ${u.toFolder}/ (same or higher in the order of INNER_LAYERS)`);
  for (const u of result.pastFace ?? []) lines.push(`${u.from} imports ${u.to}: ${u.toFolder}/ is met through its face, ${u.toFolder}/index.ts`);
  for (const f of result.loose ?? []) lines.push(`src-main/${f} is a loose file: move it into a sub-folder (ROOT_FILES lists the ones a root may hold)`);
  for (const f of result.unknownInner ?? []) lines.push(`src-main/${f}/ is in no rank: add it to INNER_LAYERS in scripts/check-imports.mjs`);
  for (const f of result.unknownFolders) lines.push(`src-main/${f}/ is in no layer: add it to LAYERS in scripts/check-imports.mjs (and eslint.config.js)`);
  return lines;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src-main'));
  const result = { ...checkImports(root), ...checkInnerLayers(root) };
  const problems = describe(result);
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    console.error(`check-imports: ${problems.length} problem(s) in ${result.files} files`);
    process.exit(1);
  }
  console.log(`check-imports: ${result.files} files, no cycles, no import up a layer or past a face`);
}
