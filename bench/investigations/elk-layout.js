#!/usr/bin/env node
// How long ELK (elkjs, in Node; the app runs the same code in a Web Worker) takes to lay out a lattice with the
// option sets of src-renderer/src/features/graphs/elk-layout.ts: the one for small graphs (network-simplex node
// placement) and the one for large graphs (simple placement, polyline routing, one crossing-minimisation pass, no greedy
// switch, the stages' own order kept in each layer).
// Keep the two sets below in step with layoutOptions() there. usage: node bench/investigations/elk-layout.js [ROWSxCOLS…] [REPS]
import { performance } from 'node:perf_hooks';
import ELK from 'elkjs/lib/elk.bundled.js';
import { lattice } from '../benchmarks/ui.js';

const COMMON = { 'elk.algorithm': 'layered', 'elk.direction': 'RIGHT', 'elk.layered.spacing.nodeNodeBetweenLayers': '60', 'elk.spacing.nodeNode': '24' };
const SETS = {
  small: { ...COMMON, 'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX' },
  large: { ...COMMON, 'elk.layered.nodePlacement.strategy': 'SIMPLE', 'elk.edgeRouting': 'POLYLINE', 'elk.layered.thoroughness': '1', 'elk.layered.crossingMinimization.greedySwitch.type': 'OFF', 'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES', 'elk.layered.crossingMinimization.forceNodeModelOrder': 'true' },
};

const args = process.argv.slice(2);
const shapes = args.filter((a) => /^\d+x\d+$/.test(a));
const reps = Number(args.find((a) => /^\d+$/.test(a)) ?? 2);
const elk = new ELK();
for (const shape of shapes.length > 0 ? shapes : ['6x10', '16x16', '20x25', '25x40']) {
  const [rows, cols] = shape.split('x').map(Number);
  const stages = lattice(rows, cols);
  for (const [name, layoutOptions] of Object.entries(SETS)) {
    const times = [];
    let size = '';
    for (let i = 0; i < reps; i++) {
      const t = performance.now();
      const result = await elk.layout({
        id: 'graph',
        layoutOptions,
        children: stages.map((s) => ({ id: s.id, width: 190, height: 64 })),
        edges: stages.flatMap((s) => s.dependsOn.map((d) => ({ id: `${d}->${s.id}`, sources: [d], targets: [s.id] }))),
      });
      times.push(performance.now() - t);
      size = `${Math.round(result.width)}×${Math.round(result.height)}`;
    }
    console.log(`${shape} (${rows * cols} stages), ${name}-graph options: ${times.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}; drawing ${size}`);
  }
}
