/** The graph view's arithmetic: framing, the stages handed to React Flow near the view, focus mode's lineage. */
import { describe, expect, it } from 'vitest';
import type { GraphTopologyNode } from '../../src-main/common/methods/graphs';
import { layerLayout } from '../../src-renderer/src/features/graphs/layer-layout';
import { chooseInitialView, READABLE_TEXT_PX, READABLE_ZOOM, STAGE_TEXT_PX, viewportFor } from '../../src-renderer/src/features/graphs/initial-view';
import { countInView, frameBox, groupsOf, lineageOf, nearRegion, prefixOf, stagesNear, viewRect } from '../../src-renderer/src/features/graphs/view-math';

const NODE = { width: 190, height: 64 };
const SPACING = { nodeWidth: 190, nodeHeight: 64, betweenLayers: 60, betweenNodes: 24 };
function lattice(rows: number, cols: number): GraphTopologyNode[] {
  const out = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const dependsOn = [...(r > 0 ? [`s${r - 1}_${c}`] : []), ...(c > 0 ? [`s${r}_${c - 1}`] : [])];
      out.push({ id: `s${r}_${c}`, dependsOn, state: r === 0 && c === 0 ? 'running' : 'pending' } as unknown as GraphTopologyNode);
    }
  }
  return out;
}

describe('the graph view', () => {
  it('frames a box centred, zoom clamped', () => {
    const vp = frameBox({ x: 0, y: 0, width: 100, height: 100 }, { width: 1000, height: 500 }, { padding: 0, minZoom: 0.1, maxZoom: 1 });
    expect(vp).toEqual({ zoom: 1, x: 450, y: 200 });
    const far = frameBox({ x: 0, y: 0, width: 100_000, height: 100 }, { width: 1000, height: 500 }, { padding: 0, minZoom: 0.5, maxZoom: 1 });
    expect(far.zoom).toBe(0.5);
  });

  it('never frames text below 11 px: a big graph opens on its running stage at a readable zoom, from its edge', () => {
    expect(READABLE_ZOOM * STAGE_TEXT_PX).toBeGreaterThanOrEqual(READABLE_TEXT_PX);
    const stages = lattice(25, 40);
    const layout = layerLayout(stages, SPACING);
    const canvas = { width: 1180, height: 700 };
    const view = chooseInitialView(stages, layout, canvas);
    expect(view).toEqual({ kind: 'focus', ids: ['s0_0'], reason: 'running' });
    const vp = viewportFor(view, layout, NODE, canvas);
    expect(vp.zoom).toBeGreaterThanOrEqual(READABLE_ZOOM);
    // the drawing's top-left corner is at the canvas's, not pushed to its middle
    expect(vp.x).toBeLessThanOrEqual(24);
    expect(vp.y).toBeLessThanOrEqual(24);
    const shown = countInView(layout, NODE, viewRect(vp, canvas));
    expect(shown).toBeGreaterThan(10);
    expect(shown).toBeLessThan(200);
  });

  it('hands React Flow only the stages near the view (and the far ends of their edges), the same set for a short pan', () => {
    const stages = lattice(250, 40);
    const layout = layerLayout(stages, SPACING);
    const canvas = { width: 1180, height: 700 };
    const vp = { x: 0, y: 0, zoom: READABLE_ZOOM };
    const region = nearRegion(vp, canvas);
    const near = stagesNear(stages, layout, NODE, region);
    expect(near.size).toBeLessThan(400);
    expect(near.has('s0_0')).toBe(true);
    // every stage in view is among them
    const view = viewRect(vp, canvas);
    for (const s of stages) {
      const at = layout.positions.get(s.id)!;
      if (at.x < view.x + view.width && at.y < view.y + view.height) expect(near.has(s.id)).toBe(true);
    }
    expect(nearRegion({ ...vp, x: -10, y: -5 }, canvas).key).toBe(region.key);
  });

  it("focus mode keeps a stage's ancestors and descendants, nothing else", () => {
    const stages = [
      { id: 'a', dependsOn: [] },
      { id: 'b', dependsOn: ['a'] },
      { id: 'c', dependsOn: ['b'] },
      { id: 'x', dependsOn: [] },
      { id: 'y', dependsOn: ['x', 'b'] },
      { id: 'z', dependsOn: ['x'] },
    ];
    expect([...lineageOf(stages, 'b')].sort()).toEqual(['a', 'b', 'c', 'y']);
    expect([...lineageOf(stages, 'y')].sort()).toEqual(['a', 'b', 'x', 'y']);
  });

  it('groups a large graph by name prefix, only when that summarises it', () => {
    expect(prefixOf('build-2')).toBe('build');
    expect(prefixOf('s12_3')).toBe('s12');
    expect(prefixOf('lonely')).toBeNull();
    const ids = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => ({ id: make(i) }));
    expect(groupsOf(ids(30, (i) => `g${i % 3}-${i}`))).toBeNull(); // small: read stage by stage
    const groups = groupsOf(ids(500, (i) => `s${Math.floor(i / 25)}-${i % 25}`));
    expect(groups?.size).toBe(20);
    expect(groups?.get('s3')?.length).toBe(25);
    expect(groupsOf(ids(500, (i) => `x${i}-a`))).toBeNull(); // one group per stage
    expect(groupsOf(ids(10_000, (i) => `s${Math.floor(i / 40)}_${i % 40}`))).toBeNull(); // 250 groups: no summary
  });
});
