/**
 * Layered (Sugiyama) layout of a graph's stages by ELK, computed in a Web Worker so a 256-stage graph never
 * blocks the window. One ELK instance (one worker) per window, created on first use.
 */
import ELK from 'elkjs/lib/elk-api.js';
import elkWorkerUrl from 'elkjs/lib/elk-worker.min.js?url';

export const NODE_WIDTH = 190;
export const NODE_HEIGHT = 64;

export interface LaidOut {
  positions: Map<string, { x: number; y: number }>;
  /** The whole drawing's size (for choosing the initial view before anything is drawn). */
  width: number;
  height: number;
}

let elk: InstanceType<typeof ELK> | null = null;

function engine(): InstanceType<typeof ELK> {
  elk ??= new ELK({ workerFactory: () => new Worker(elkWorkerUrl) });
  return elk;
}

export async function layoutStages(stages: readonly { id: string; dependsOn: readonly string[] }[]): Promise<LaidOut> {
  const ids = new Set(stages.map((s) => s.id));
  const result = await engine().layout({
    id: 'graph',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.layered.spacing.nodeNodeBetweenLayers': '60',
      'elk.spacing.nodeNode': '24',
      'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
    },
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
