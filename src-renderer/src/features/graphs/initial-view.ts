/**
 * Where a graph's view starts. A graph that fits the canvas at a readable zoom is shown whole. A bigger one
 * (hundreds of stages) would be specks at fit, so the view starts at a readable zoom on what matters most:
 * its failed stages, else its running ones, else its first rank (the stages that depend on nothing). "Fit
 * view" still shows everything, and the minimap says where you are.
 */
import type { GraphTopologyNode } from '../../../../src-main/common/methods/graphs';

/** Below this zoom a stage's id (13 px) is no longer readable. */
export const READABLE_ZOOM = 0.6;
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
  return `${total.toLocaleString('en-US')} stages: showing ${what}. Fit view shows them all; the minimap shows where you are.`;
}
