/**
 * The layout of a graph too big for ELK: the same picture ELK's large-graph options draw (layers left to right,
 * each layer's stages in the order the agent listed them, packed from the top), computed in one pass.
 * ELK's layered algorithm walks the graph recursively in several of its steps (connected components, among
 * others), one stack frame per stage on a path: a 250×40 lattice (10,000 stages) overflows the stack
 * ("Maximum call stack size exceeded"; in Node already between 4,000 and 6,000 stages), and a 4,000-stage one
 * took 5 s. Here a stage's layer is its longest chain of dependencies (Kahn's order, no recursion), so every
 * edge points right; time and memory are linear in stages and edges.
 */
export interface LayerSpacing {
  nodeWidth: number;
  nodeHeight: number;
  /** Gap between two layers (columns). */
  betweenLayers: number;
  /** Gap between two stages of one layer. */
  betweenNodes: number;
}

/** Where each stage goes, and the whole drawing's size (for choosing the initial view before anything is drawn). */
export interface LaidOut {
  positions: Map<string, { x: number; y: number }>;
  width: number;
  height: number;
}

export function layerLayout(stages: readonly { id: string; dependsOn: readonly string[] }[], spacing: LayerSpacing): LaidOut {
  const index = new Map(stages.map((s, i) => [s.id, i]));
  const layer = new Array<number>(stages.length).fill(0);
  const waiting = new Array<number>(stages.length).fill(0);
  const dependents: number[][] = stages.map(() => []);
  stages.forEach((s, i) => {
    for (const d of s.dependsOn) {
      const from = index.get(d);
      if (from === undefined || from === i) continue; // a dependency outside the graph is not drawn (as with ELK)
      dependents[from]!.push(i);
      waiting[i]!++;
    }
  });
  // Kahn's order: a stage is placed once every stage it depends on has been
  const queue: number[] = [];
  stages.forEach((_, i) => waiting[i] === 0 && queue.push(i));
  let last = 0;
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head]!;
    last = Math.max(last, layer[i]!);
    for (const j of dependents[i]!) {
      layer[j] = Math.max(layer[j]!, layer[i]! + 1);
      if (--waiting[j]! === 0) queue.push(j);
    }
  }
  // a cycle cannot be submitted (the engine refuses it); should one arrive, its stages go after everything else
  stages.forEach((_, i) => waiting[i]! > 0 && (layer[i] = last + 1));

  const rows = new Map<number, number>();
  const positions = new Map<string, { x: number; y: number }>();
  let width = 0;
  let height = 0;
  stages.forEach((s, i) => {
    const column = layer[i]!;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    const x = column * (spacing.nodeWidth + spacing.betweenLayers);
    const y = row * (spacing.nodeHeight + spacing.betweenNodes);
    positions.set(s.id, { x, y });
    width = Math.max(width, x + spacing.nodeWidth);
    height = Math.max(height, y + spacing.nodeHeight);
  });
  return { positions, width, height };
}
