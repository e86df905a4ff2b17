/** The layout of graphs too big for ELK: layers by longest dependency chain, the stages' own order in each. */
import { describe, expect, it } from 'vitest';
import { layerLayout } from '../../src-renderer/src/features/graphs/layer-layout';
import { ELK_MAX_STAGES, layoutStages } from '../../src-renderer/src/features/graphs/elk-layout';

const SPACING = { nodeWidth: 100, nodeHeight: 40, betweenLayers: 20, betweenNodes: 10 };

function lattice(rows: number, cols: number) {
  const stages: { id: string; dependsOn: string[] }[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const dependsOn: string[] = [];
      if (r > 0) dependsOn.push(`s${r - 1}_${c}`);
      if (c > 0) dependsOn.push(`s${r}_${c - 1}`);
      stages.push({ id: `s${r}_${c}`, dependsOn });
    }
  }
  return stages;
}

describe('layer layout', () => {
  it('puts each stage one layer right of its latest dependency, layers in the order the stages were listed', () => {
    const { positions, width, height } = layerLayout(
      [
        { id: 'build', dependsOn: [] },
        { id: 'lint', dependsOn: [] },
        { id: 'test', dependsOn: ['build'] },
        { id: 'ship', dependsOn: ['test', 'lint'] },
      ],
      SPACING,
    );
    expect(Object.fromEntries(positions)).toEqual({
      build: { x: 0, y: 0 },
      lint: { x: 0, y: 50 },
      test: { x: 120, y: 0 },
      ship: { x: 240, y: 0 },
    });
    expect({ width, height }).toEqual({ width: 340, height: 90 });
  });

  it('lays out a 10,000-stage lattice: every edge points right, no two stages in one place, 40 to a layer at most', () => {
    const stages = lattice(250, 40);
    const { positions, width, height } = layerLayout(stages, SPACING);
    expect(positions.size).toBe(10_000);
    for (const s of stages) for (const d of s.dependsOn) expect(positions.get(d)!.x).toBeLessThan(positions.get(s.id)!.x);
    expect(new Set([...positions.values()].map((p) => `${p.x},${p.y}`)).size).toBe(10_000);
    // s(r,c) is on layer r + c: 289 layers, and the widest layer holds one stage of each of the 40 columns
    expect(width).toBe(288 * 120 + 100);
    expect(height).toBe(39 * 50 + 40);
  });

  it('ignores a dependency outside the graph, and places a cycle (which the engine refuses) after everything else without failing', () => {
    const { positions } = layerLayout(
      [
        { id: 'a', dependsOn: ['not-here'] },
        { id: 'b', dependsOn: ['a'] },
        { id: 'x', dependsOn: ['y'] },
        { id: 'y', dependsOn: ['x'] },
      ],
      SPACING,
    );
    expect(positions.get('a')).toEqual({ x: 0, y: 0 });
    expect(positions.get('b')).toEqual({ x: 120, y: 0 });
    expect(positions.get('x')!.x).toBe(240);
    expect(positions.get('y')!.x).toBe(240);
    expect(positions.get('y')!.y).not.toBe(positions.get('x')!.y);
  });

  it('is what the graph view uses above ELK_MAX_STAGES (ELK is not asked: it would overflow its stack)', async () => {
    const stages = lattice(60, 40);
    expect(stages.length).toBeGreaterThan(ELK_MAX_STAGES);
    // no worker exists in this test: a call into ELK would throw, so this resolving means ELK was not used
    const laid = await layoutStages(stages);
    expect(laid.positions.size).toBe(2_400);
    expect(laid.positions.get('s0_1')!.x).toBeGreaterThan(laid.positions.get('s0_0')!.x);
  });
});
