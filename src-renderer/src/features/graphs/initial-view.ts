/**
 * Where a graph's view starts, and where "Fit view" goes. A graph that fits the canvas at a readable zoom is
 * shown whole. A bigger one would be specks at fit, so the view goes to a readable zoom (text >= 11 px on
 * screen) on what matters most: its failed stages, else its running ones, else its first rank (the stages that
 * depend on nothing). The minimap shows the rest; zooming out (or "Whole graph") draws every stage small.
 */
import type { GraphTopologyNode } from '../../../../src-main/common/methods/graphs';
import type { LaidOut } from './layer-layout';
import { boxOf, frameBox, type Size, type Viewport } from './view-math';

/** The smallest text a stage draws (its state and detail lines, 13 px; its id is 14 px). */
export const STAGE_TEXT_PX = 13;
/** The smallest on-screen text height that counts as readable. */
export const READABLE_TEXT_PX = 11;
/** Below this zoom a stage's text is under 11 px on screen: fit view never goes below it. */
export const READABLE_ZOOM = READABLE_TEXT_PX / STAGE_TEXT_PX;
/** At most this many stages are framed when focusing (a first rank of 40 would not fit at a readable zoom). */
const MAX_FOCUS = 6;

export type InitialView =
  | { kind: 'all' }
  | { kind: 'focus'; ids: string[]; reason: 'failed' | 'running' | 'first rank' };

export interface Extent {
  width: number;
  height: number;
}

/** The zoom at which `graph` fills `canvas` (with a margin), as fit view would choose it. */
export function fitZoom(graph: Extent, canvas: Extent, margin = 0.9): number {
  if (graph.width <= 0 || graph.height <= 0) return 1;
  return Math.min(canvas.width / graph.width, canvas.height / graph.height) * margin;
}

export function chooseInitialView(stages: readonly GraphTopologyNode[], graph: Extent, canvas: Extent): InitialView {
  if (canvas.width <= 0 || canvas.height <= 0 || fitZoom(graph, canvas) >= READABLE_ZOOM) return { kind: 'all' };
  const pick = (state: string) => stages.filter((s) => s.state === state).slice(0, MAX_FOCUS).map((s) => s.id);
  const failed = pick('failed');
  if (failed.length > 0) return { kind: 'focus', ids: failed.slice(0, 1), reason: 'failed' };
  const running = pick('running');
  if (running.length > 0) return { kind: 'focus', ids: running, reason: 'running' };
  const roots = stages.filter((s) => s.dependsOn.length === 0).slice(0, MAX_FOCUS).map((s) => s.id);
  return { kind: 'focus', ids: roots.length > 0 ? roots : stages.slice(0, 1).map((s) => s.id), reason: 'first rank' };
}

/** The sentence the view shows while it is focused, so the person knows there is more. */
export function focusNote(view: InitialView, total: number): string | null {
  if (view.kind === 'all') return null;
  const what = view.reason === 'failed' ? 'the first failed stage' : view.reason === 'running' ? 'the running stages' : 'the first stages';
  return `${total.toLocaleString('en-US')} stages: showing ${what} at a readable size. The minimap shows the rest; "Whole graph" or zooming out shows every stage as a coloured box.`;
}

/** A margin (px) kept between the drawing's edge and the canvas's when the drawing is bigger than the canvas. */
const EDGE_MARGIN = 24;

/**
 * The viewport for `view` on a canvas of `size`: the whole drawing (never below the readable zoom), or the
 * focused stages at a readable zoom. A drawing larger than the canvas is never pushed inward past its own edge
 * (focusing its first stage shows the stages after it, not empty space before it).
 */
export function viewportFor(view: InitialView, layout: LaidOut, node: Size, size: Size): Viewport {
  const whole = { x: 0, y: 0, width: layout.width, height: layout.height };
  const box = view.kind === 'all' ? whole : (boxOf(view.ids, layout, node) ?? whole);
  const vp = frameBox(box, size, { padding: view.kind === 'all' ? 0.04 : 0.2, minZoom: READABLE_ZOOM, maxZoom: 1 });
  const clamp = (at: number, extent: number, canvas: number) => (extent * vp.zoom + 2 * EDGE_MARGIN > canvas ? Math.max(canvas - EDGE_MARGIN - extent * vp.zoom, Math.min(EDGE_MARGIN, at)) : at);
  return { zoom: vp.zoom, x: clamp(vp.x, layout.width, size.width), y: clamp(vp.y, layout.height, size.height) };
}

/** The whole drawing in the canvas, at whatever zoom that takes (the far-out overview of a big graph). */
export function wholeViewport(layout: LaidOut, size: Size): Viewport {
  return frameBox({ x: 0, y: 0, width: layout.width, height: layout.height }, size, { padding: 0.03, minZoom: 0.005, maxZoom: 1 });
}
