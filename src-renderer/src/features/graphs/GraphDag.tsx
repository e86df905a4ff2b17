import { useEffect, useMemo, useState } from 'react';
import { Background, Controls, MiniMap, ReactFlow, type Edge } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import type { GraphTopologyNode } from '../../../../src-main/common/methods/graphs';
import { layoutStages, NODE_HEIGHT, NODE_WIDTH, type LaidOut } from './elk-layout';
import { StageNode, type StageFlowNode } from './StageNode';
import { ViewFraming } from './ViewFraming';

const NODE_TYPES = { stage: StageNode };

/** The colour the minimap gives a stage: the same family as the node, so a failed graph shows red there too. */
const MINIMAP_COLOUR: Record<string, string> = {
  pending: '#9aa1ab',
  running: '#2f6fdb',
  completed: '#1a7f37',
  failed: '#c0362c',
  cancelled: '#8a6d00',
  skipped: '#b0b4ba',
};

/** A small graph is seen whole: the minimap (orientation in a big one) would only cover part of it. */
const MINIMAP_FROM = 30;

/** The selected graph's stages as a DAG: ELK's layered layout (off the main thread), live states, pan/zoom/fit/minimap. */
export function GraphDag(props: { graphId: string; stages: GraphTopologyNode[]; selectedStageId: string | null; onSelect(id: string): void }): React.JSX.Element {
  const { stages, selectedStageId } = props;
  // the layout depends on the structure only: a state change re-colours, it never re-lays out
  const structure = useMemo(() => JSON.stringify(stages.map((s) => [s.id, s.dependsOn])), [stages]);
  const [laid, setLaid] = useState<{ structure: string; layout: LaidOut } | null>(null);
  const [layoutError, setLayoutError] = useState<string | null>(null);
  const [moved, setMoved] = useState(false);
  const [framedFor, setFramedFor] = useState('');

  useEffect(() => {
    let live = true;
    setLayoutError(null);
    const shape = JSON.parse(structure) as [string, string[]][];
    layoutStages(shape.map(([id, dependsOn]) => ({ id, dependsOn })))
      .then((layout) => live && setLaid({ structure, layout }))
      .catch((error: unknown) => live && setLayoutError(error instanceof Error ? error.message : String(error)));
    return () => {
      live = false;
    };
  }, [structure]);

  const nodes = useMemo<StageFlowNode[]>(() => {
    if (!laid || laid.structure !== structure) return [];
    return stages.map((stage) => ({
      id: stage.id,
      type: 'stage',
      position: laid.layout.positions.get(stage.id) ?? { x: 0, y: 0 },
      data: { stage, selected: stage.id === selectedStageId },
      // known sizes: the minimap and fit need no measuring round-trip
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      draggable: false,
      connectable: false,
    }));
  }, [laid, structure, stages, selectedStageId]);

  const edges = useMemo<Edge[]>(() => {
    // one lookup table, not a search of every stage per edge (2,000 edges × 1,000 stages on a 25×40 lattice)
    const stateOf = new Map(stages.map((s) => [s.id, s.state]));
    return stages.flatMap((s) =>
      s.dependsOn.map((d) => ({
        id: `${d}->${s.id}`,
        source: d,
        target: s.id,
        animated: s.state === 'running',
        className: `edge-${stateOf.get(d) ?? 'pending'}`,
      })),
    );
  }, [stages]);

  if (layoutError) return <div className="inline-error" role="alert">Could not lay out the graph: {layoutError}</div>;
  if (nodes.length === 0) return <div className="muted pad">Laying out {stages.length} stages…</div>;
  return (
    // data-view: "moved" once the person moved the view, else the canvas size ("WxH") it was last framed for
    <div className="graph-dag" data-testid="graph-dag" data-view={moved ? 'moved' : framedFor}>
      <ReactFlow
        key={`${props.graphId}:${structure.length}`}
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        colorMode="system"
        minZoom={0.05}
        maxZoom={2}
        onlyRenderVisibleElements={stages.length > 120}
        nodesDraggable={false}
        nodesConnectable={false}
        onNodeClick={(_, node) => props.onSelect(node.id)}
        onMoveStart={(event) => event && setMoved(true)}
      >
        <Background gap={24} size={1} />
        <Controls showInteractive={false} fitViewOptions={{ padding: 0.08, maxZoom: 1 }} onFitView={() => setMoved(true)} />
        <ViewFraming stages={stages} drawing={laid?.layout ?? { width: 0, height: 0 }} moved={moved} onFramed={setFramedFor} />
        {stages.length >= MINIMAP_FROM && <MiniMap pannable zoomable nodeColor={(n) => MINIMAP_COLOUR[(n.data as { stage: GraphTopologyNode }).stage.state] ?? '#999'} />}
      </ReactFlow>
    </div>
  );
}
