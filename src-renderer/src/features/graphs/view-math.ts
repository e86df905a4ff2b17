/**
 * The arithmetic of the graph's view, kept out of React so it is tested alone: framing a box at a zoom,
 * which stages are near the view (only those go through React Flow: its stores take every node they are given),
 * and a stage's ancestors and descendants (focus mode).
 */
import type { LaidOut } from './layer-layout';

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
export interface Size {
  width: number;
  height: number;
}

/** The viewport that shows `box` centred in `canvas`, as large as it fits with `padding` (a fraction), zoom clamped. */
export function frameBox(box: Box, canvas: Size, options: { padding: number; minZoom: number; maxZoom: number }): Viewport {
  const w = Math.max(1, box.width * (1 + 2 * options.padding));
  const h = Math.max(1, box.height * (1 + 2 * options.padding));
  const fit = Math.min(canvas.width / w, canvas.height / h);
  const zoom = Math.min(options.maxZoom, Math.max(options.minZoom, fit));
  return { x: canvas.width / 2 - (box.x + box.width / 2) * zoom, y: canvas.height / 2 - (box.y + box.height / 2) * zoom, zoom };
}

/** The box around the stages `ids` (their laid-out boxes); null when none of them is laid out. */
export function boxOf(ids: readonly string[], layout: LaidOut, node: Size): Box | null {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const id of ids) {
    const at = layout.positions.get(id);
    if (!at) continue;
    x0 = Math.min(x0, at.x);
    y0 = Math.min(y0, at.y);
    x1 = Math.max(x1, at.x + node.width);
    y1 = Math.max(y1, at.y + node.height);
  }
  return x0 === Infinity ? null : { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** The part of the drawing the canvas shows at `vp`, in the drawing's coordinates. */
export function viewRect(vp: Viewport, canvas: Size): Box {
  return { x: -vp.x / vp.zoom, y: -vp.y / vp.zoom, width: canvas.width / vp.zoom, height: canvas.height / vp.zoom };
}

/**
 * The region whose stages are handed to React Flow: the view grown by `margin` on each side (so a short pan
 * draws nothing new) and snapped outward to a grid of quarter views, so that panning within it yields the same
 * region (and `key`): the node list is rebuilt only when the view leaves it.
 */
export function nearRegion(vp: Viewport, canvas: Size, margin = 0.25): Box & { key: string } {
  const v = viewRect(vp, canvas);
  const stepX = Math.max(1, v.width / 4);
  const stepY = Math.max(1, v.height / 4);
  // the step itself is snapped to a power of two, so a tiny zoom change keeps the grid
  const snap = (n: number) => 2 ** Math.ceil(Math.log2(n));
  const sx = snap(stepX);
  const sy = snap(stepY);
  const x0 = Math.floor((v.x - v.width * margin) / sx) * sx;
  const y0 = Math.floor((v.y - v.height * margin) / sy) * sy;
  const x1 = Math.ceil((v.x + v.width * (1 + margin)) / sx) * sx;
  const y1 = Math.ceil((v.y + v.height * (1 + margin)) / sy) * sy;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0, key: `${x0},${y0},${x1},${y1}` };
}

export function intersects(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * The stages whose boxes meet `region`, and the far ends of their edges (so an edge leaving the view is still
 * drawn to where it goes), in the graph's order.
 */
export function stagesNear(
  stages: readonly { id: string; dependsOn: readonly string[]; dependents?: readonly string[] }[],
  layout: LaidOut,
  node: Size,
  region: Box,
): Set<string> {
  const near = new Set<string>();
  for (const s of stages) {
    const at = layout.positions.get(s.id);
    if (at && intersects(region, { x: at.x, y: at.y, width: node.width, height: node.height })) near.add(s.id);
  }
  const ends = new Set(near);
  for (const s of stages) {
    if (near.has(s.id)) {
      for (const d of s.dependsOn) ends.add(d);
    } else if (s.dependsOn.some((d) => near.has(d))) ends.add(s.id);
  }
  return ends;
}

/** How many stages' boxes meet the view itself (what "every visible node painted" counts). */
export function countInView(layout: LaidOut, node: Size, view: Box): number {
  let n = 0;
  for (const at of layout.positions.values()) if (intersects(view, { x: at.x, y: at.y, width: node.width, height: node.height })) n++;
  return n;
}

/** A stage with everything it depends on (transitively) and everything that depends on it: focus mode's set. */
export function lineageOf(stages: readonly { id: string; dependsOn: readonly string[] }[], id: string): Set<string> {
  const dependents = new Map<string, string[]>();
  const deps = new Map<string, readonly string[]>();
  for (const s of stages) {
    deps.set(s.id, s.dependsOn);
    for (const d of s.dependsOn) {
      const list = dependents.get(d);
      if (list) list.push(s.id);
      else dependents.set(d, [s.id]);
    }
  }
  const out = new Set<string>([id]);
  const walk = (start: string, next: (x: string) => readonly string[] | undefined) => {
    const stack = [start];
    while (stack.length > 0) {
      for (const n of next(stack.pop()!) ?? []) {
        if (out.has(n)) continue;
        out.add(n);
        stack.push(n);
      }
    }
  };
  walk(id, (x) => deps.get(x));
  walk(id, (x) => dependents.get(x));
  return out;
}

/** A stage id's group: its name up to the first separator ("build-2" → "build", "s0_12" → "s0"); null without one. */
export function prefixOf(id: string): string | null {
  const m = /^(.+?)[-_./:]/.exec(id);
  return m ? m[1]! : null;
}

/** More groups than this are no summary (250 frames over a 10,000-stage drawing): none are drawn. */
const MAX_GROUPS = 60;
/** Below this many stages the graph is not grouped: it reads stage by stage. */
export const GROUP_FROM = 200;

/**
 * A large graph's stages grouped by name prefix, in the graph's order; null when that says nothing (a small
 * graph, a single group, too many groups, or nearly one group per stage).
 */
export function groupsOf(stages: readonly { id: string }[]): Map<string, string[]> | null {
  if (stages.length < GROUP_FROM) return null;
  const groups = new Map<string, string[]>();
  for (const s of stages) {
    const key = prefixOf(s.id) ?? s.id;
    const list = groups.get(key);
    if (list) list.push(s.id);
    else groups.set(key, [s.id]);
  }
  return groups.size >= 2 && groups.size <= MAX_GROUPS && groups.size <= stages.length / 4 ? groups : null;
}
