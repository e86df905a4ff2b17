/**
 * Layered (Sugiyama) layout of a graph's stages by ELK, computed in a Web Worker. Every graph is first drawn from
 * the linear layout (layer-layout.ts); ELK only refines a small one after (GraphDag.tsx): at 1,000 stages it
 * was ~60 % of the time from click to painted. One ELK instance (one worker) per window, created on first use.
 */
import ELK from 'elkjs/lib/elk-api.js';
import elkWorkerUrl from 'elkjs/lib/elk-worker.min.js?url';
import { layerLayout, type LaidOut } from './layer-layout';

export const NODE_WIDTH = 190;
export const NODE_HEIGHT = 64;
/** Gaps between layers and between the stages of one layer (ELK's and `layerLayout`'s alike). */
const LAYER_GAP = 60;
const NODE_GAP = 24;
/** The linear layout's spacing: the first paint of every graph (layer-layout.ts). */
export const SPACING = { nodeWidth: NODE_WIDTH, nodeHeight: NODE_HEIGHT, betweenLayers: LAYER_GAP, betweenNodes: NODE_GAP };

export type { LaidOut } from './layer-layout';

let elk: InstanceType<typeof ELK> | null = null;

function engine(): InstanceType<typeof ELK> {
  elk ??= new ELK({ workerFactory: () => new Worker(elkWorkerUrl) });
  return elk;
}

/**
 * Above this many stages the layout trades polish for time. Network-simplex node placement (straighter edges)
 * grows far faster than linear: on a 25×40 lattice it took ~15 s of the ui benchmark's 17 s from click to
 * painted. Brandes–Köpf placement (ELK's default) was ~10× faster but scattered a 500-stage lattice over a
 * drawing four times as tall (graph-500's screenshots); simple placement keeps every layer packed in the order
 * crossing minimisation chose, as network simplex did. One crossing-minimisation pass instead of seven, no
 * greedy-switch pass and polyline routing (React Flow draws its own edges from the positions; ELK's routes are
 * never used) take most of what is left. Each layer keeps the order the agent listed its stages in (model
 * order, forced): a person finds `s0-12` between `s0-11` and `s0-13`, and skipping the reordering made the
 * 25×40 lattice's layout ~25 % faster again (the drawing gets wider: more room between layers for the edges
 * that cross). `node bench/investigations/elk-layout.js` times both sets.
 */
export const LARGE_GRAPH_STAGES = 150;

/**
 * Above this many stages ELK is not asked at all: its recursion overflows the stack on a 10,000-stage graph, and a
 * 4,000-stage one already took 5 s. `layerLayout` draws the same picture as the large-graph options (layers in
 * the stages' own order, simple placement) in one linear pass.
 */
export const ELK_MAX_STAGES = 2_000;

/** ELK layered options for a graph of `count` stages (bench/investigations/elk-layout.js times the same two sets). */
export function layoutOptions(count: number): Record<string, string> {
  const common = {
    'elk.algorithm': 'layered',
    'elk.direction': 'RIGHT',
    'elk.layered.spacing.nodeNodeBetweenLayers': String(LAYER_GAP),
    'elk.spacing.nodeNode': String(NODE_GAP),
  };
  if (count <= LARGE_GRAPH_STAGES) return { ...common, 'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX' };
  return {
    ...common,
    'elk.layered.nodePlacement.strategy': 'SIMPLE',
    'elk.edgeRouting': 'POLYLINE',
    'elk.layered.thoroughness': '1',
    'elk.layered.crossingMinimization.greedySwitch.type': 'OFF',
    'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
    'elk.layered.crossingMinimization.forceNodeModelOrder': 'true',
  };
}

export async function layoutStages(stages: readonly { id: string; dependsOn: readonly string[] }[]): Promise<LaidOut> {
  if (stages.length > ELK_MAX_STAGES) {
    return layerLayout(stages, SPACING);
  }
  const ids = new Set(stages.map((s) => s.id));
  const result = await engine().layout({
    id: 'graph',
    layoutOptions: layoutOptions(stages.length),
    children: stages.map((s) => ({ id: s.id, width: NODE_WIDTH, height: NODE_HEIGHT })),
    edges: stages.flatMap((s) => s.dependsOn.filter((d) => ids.has(d)).map((d) => ({ id: `${d}->${s.id}`, sources: [d], targets: [s.id] }))),
  });
  const positions = new Map<string, { x: number; y: number }>();
  for (const child of result.children ?? []) positions.set(child.id, { x: child.x ?? 0, y: child.y ?? 0 });
  let width = 0;
  let height = 0;
  for (const { x, y } of positions.values()) {
    width = Math.max(width, x + NODE_WIDTH);
    height = Math.max(height, y + NODE_HEIGHT);
  }
  return { positions, width, height };
}
