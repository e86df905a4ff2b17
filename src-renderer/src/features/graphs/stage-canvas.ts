/**
 * Stages drawn on a 2D canvas: the far-out level of detail (each stage a box in its state's colour, no text:
 * names are unreadable there) and the minimap. One pass over the stages, whatever their number: 10,000 boxes
 * cost a few milliseconds here, where as DOM nodes they cost seconds.
 */
import type { GraphTopologyNode } from '../../../../src-main/common/methods/graphs';
import type { LaidOut } from './layer-layout';
import { boxOf, type Box, type Size, type Viewport } from './view-math';

/** The state colours, read from the page's CSS (graphs.css), so the light and dark schemes both apply. */
export function stateColours(from: Element): Record<string, string> {
  const style = getComputedStyle(from);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    pending: read('--st-pending', '#6b7280'),
    running: read('--st-running', '#2f6fdb'),
    completed: read('--st-completed', '#1a7f37'),
    failed: read('--st-failed', '#c0362c'),
    cancelled: read('--st-cancelled', '#8a5a00'),
    skipped: read('--st-skipped', '#7d8590'),
    edge: read('--border', '#c9ced6'),
    text: read('--text', '#1f2328'),
  };
}

export interface CanvasScene {
  stages: readonly GraphTopologyNode[];
  layout: LaidOut;
  node: Size;
  colours: Record<string, string>;
  /** Stages drawn faint (the finder's non-matches, focus mode's outsiders); null: none. */
  dimmed: ((id: string) => boolean) | null;
  /** Edges are drawn only when there are not too many to mean anything. */
  edges: boolean;
  /** A large graph's groups (by name prefix): framed and named, with what failed or runs in each. */
  groups: Map<string, string[]> | null;
}

/** Sizes the canvas for the device's pixels; returns its 2D context with the transform reset. */
export function prepare(canvas: HTMLCanvasElement, size: Size): CanvasRenderingContext2D | null {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(size.width * dpr));
  const h = Math.max(1, Math.round(size.height * dpr));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.setTransform(dpr * 1, 0, 0, dpr * 1, 0, 0);
  return ctx;
}

/** Draws `scene` as seen through `vp` (screen = drawing × zoom + offset), only what meets `view`. */
export function drawScene(ctx: CanvasRenderingContext2D, scene: CanvasScene, vp: Viewport, view: Box): void {
  const { layout, node, colours } = scene;
  const inView = (x: number, y: number) => x + node.width >= view.x && x <= view.x + view.width && y + node.height >= view.y && y <= view.y + view.height;
  const sx = (x: number) => x * vp.zoom + vp.x;
  const sy = (y: number) => y * vp.zoom + vp.y;
  if (scene.edges) {
    ctx.strokeStyle = colours.edge ?? '#ccc';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const s of scene.stages) {
      const to = layout.positions.get(s.id);
      if (!to) continue;
      for (const d of s.dependsOn) {
        const from = layout.positions.get(d);
        if (!from || (!inView(from.x, from.y) && !inView(to.x, to.y))) continue;
        ctx.moveTo(sx(from.x + node.width), sy(from.y + node.height / 2));
        ctx.lineTo(sx(to.x), sy(to.y + node.height / 2));
      }
    }
    ctx.stroke();
  }
  // boxes at their size while they are big enough to be boxes; below 3 px a dot of at least 2 px
  const w = Math.max(2, node.width * vp.zoom);
  const h = Math.max(2, node.height * vp.zoom);
  for (const s of scene.stages) {
    const at = layout.positions.get(s.id);
    if (!at || !inView(at.x, at.y)) continue;
    const faint = scene.dimmed?.(s.id) ? 0.2 : 1;
    const colour = colours[s.state] ?? '#999';
    // not only colour: pending is a lighter fill, skipped and cancelled an outline (they never ran)
    if (s.state === 'skipped' || s.state === 'cancelled') {
      ctx.globalAlpha = faint;
      ctx.strokeStyle = colour;
      ctx.lineWidth = 1;
      ctx.strokeRect(sx(at.x) + 0.5, sy(at.y) + 0.5, Math.max(1, w - 1), Math.max(1, h - 1));
      continue;
    }
    ctx.globalAlpha = faint * (s.state === 'pending' ? 0.45 : 1);
    ctx.fillStyle = colour;
    ctx.fillRect(sx(at.x), sy(at.y), w, h);
  }
  ctx.globalAlpha = 1;
  if (scene.groups) drawGroups(ctx, scene, vp, view);
}

/** Each group framed around its stages, named above its frame with its size and what failed or runs in it. */
function drawGroups(ctx: CanvasRenderingContext2D, scene: CanvasScene, vp: Viewport, view: Box): void {
  const { layout, node, colours } = scene;
  const state = new Map(scene.stages.map((s) => [s.id, s.state]));
  ctx.font = '600 12px system-ui, sans-serif';
  ctx.textBaseline = 'bottom';
  for (const [name, ids] of scene.groups ?? []) {
    const box = boxOf(ids, layout, node);
    if (!box || box.x + box.width < view.x || box.x > view.x + view.width || box.y + box.height < view.y || box.y > view.y + view.height) continue;
    let failed = 0;
    let running = 0;
    for (const id of ids) {
      if (state.get(id) === 'failed') failed++;
      else if (state.get(id) === 'running') running++;
    }
    const pad = 8;
    const left = box.x * vp.zoom + vp.x - pad;
    const top = box.y * vp.zoom + vp.y - pad;
    const width = box.width * vp.zoom + 2 * pad;
    const height = box.height * vp.zoom + 2 * pad;
    ctx.strokeStyle = failed > 0 ? (colours.failed ?? '#c00') : (colours.edge ?? '#ccc');
    ctx.lineWidth = failed > 0 ? 2 : 1;
    ctx.strokeRect(left, top, width, height);
    // the longest label that fits over its frame (names never overlap a neighbour's); none when even the name does not
    const full = `${name} · ${ids.length}${failed > 0 ? ` · ${failed} failed` : ''}${running > 0 ? ` · ${running} running` : ''}`;
    const label = [full, failed > 0 ? `${name} · ${failed} failed` : `${name} · ${ids.length}`, name].find((l) => ctx.measureText(l).width <= width);
    if (!label) continue;
    ctx.fillStyle = colours.text ?? '#222';
    ctx.fillText(label, left, top - 2);
  }
}
