import { useEffect, useMemo, useRef, useState } from 'react';
import { Background, Controls, MiniMap, ReactFlow, useReactFlow, type Edge } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import type { GraphTopologyNode } from '../../../../src-main/common/methods/graphs';
import { layoutStages, NODE_HEIGHT, NODE_WIDTH, type LaidOut } from './elk-layout';
import { StageNode, type StageFlowNode } from './StageNode';
import { ViewFraming } from './ViewFraming';

const NODE_TYPES = { stage: StageNode };
const NO_POSITIONS = new Map<string, { x: number; y: number }>();

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

/** Centres the view on a stage the finder went to (`focus.seq` changes each time, so going to it again re-centres). */
function FocusOnStage(props: { focus: { id: string; seq: number } | null; positions: Map<string, { x: number; y: number }>; onFocused(): void }): null {
  const { setCenter, getZoom } = useReactFlow();
  const { focus, positions, onFocused } = props;
  const done = useRef(-1);
  useEffect(() => {
    if (!focus || done.current === focus.seq) return;
    const at = positions.get(focus.id);
    if (!at) return; // not laid out yet: again once it is
    done.current = focus.seq;
    onFocused();
    void setCenter(at.x + NODE_WIDTH / 2, at.y + NODE_HEIGHT / 2, { zoom: Math.max(getZoom(), 0.8), duration: 0 });
  }, [focus, positions]);
  return null;
}

/** A node's own element: keyboard focus sits on React Flow's wrapper of it. */
function nodeIdOf(target: EventTarget | null): string | null {
  return target instanceof HTMLElement && target.classList.contains('react-flow__node') ? target.getAttribute('data-id') : null;
}

/**
 * The selected graph's stages as a DAG: ELK's layered layout (off the main thread), live states, pan/zoom/fit/minimap.
 * Keyboard: Tab walks the stages (edges are not stops), Enter or Space opens the focused one. `matches`: the
 * stages the finder picks out (the rest dimmed); `focus`: a stage to centre the view on.
 */
export function GraphDag(props: {
  graphId: string;
  stages: GraphTopologyNode[];
  selectedStageId: string | null;
  attempts?: ReadonlyMap<string, { attempt: number; maxAttempts: number }>;
  matches?: Set<string> | null;
  focus?: { id: string; seq: number } | null;
  onSelect(id: string): void;
}): React.JSX.Element {
  const { stages, selectedStageId, attempts, matches = null } = props;
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
      data: { stage, selected: stage.id === selectedStageId, attempt: attempts?.get(stage.id) ?? null },
      className: matches && !matches.has(stage.id) ? 'dimmed' : undefined,
      // known sizes: the minimap and fit need no measuring round-trip
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      draggable: false,
      connectable: false,
    }));
  }, [laid, structure, stages, selectedStageId, attempts, matches]);

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
    <div
      className="graph-dag"
      data-testid="graph-dag"
      data-view={moved ? 'moved' : framedFor}
      onKeyDown={(e) => {
        const id = (e.key === 'Enter' || e.key === ' ') && nodeIdOf(e.target);
        if (!id) return;
        e.preventDefault();
        props.onSelect(id);
      }}
    >
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
        edgesFocusable={false}
        onNodeClick={(_, node) => props.onSelect(node.id)}
        onMoveStart={(event) => event && setMoved(true)}
      >
        <Background gap={24} size={1} />
        <Controls showInteractive={false} fitViewOptions={{ padding: 0.08, maxZoom: 1 }} onFitView={() => setMoved(true)} />
        <FocusOnStage focus={props.focus ?? null} positions={laid?.layout.positions ?? NO_POSITIONS} onFocused={() => setMoved(true)} />
        <ViewFraming stages={stages} drawing={laid?.layout ?? { width: 0, height: 0 }} moved={moved} onFramed={setFramedFor} />
        {stages.length >= MINIMAP_FROM && <MiniMap pannable zoomable nodeColor={(n) => MINIMAP_COLOUR[(n.data as { stage: GraphTopologyNode }).stage.state] ?? '#999'} />}
      </ReactFlow>
    </div>
  );
}
