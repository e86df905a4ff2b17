import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Background, ControlButton, Controls, Panel, ReactFlow, type Edge } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import type { GraphTopologyNode } from '../../../../src-main/common/methods/graphs';
import { LARGE_GRAPH_STAGES, layoutStages, NODE_HEIGHT, NODE_WIDTH, SPACING, type LaidOut } from './elk-layout';
import { layerLayout } from './layer-layout';
import { StageNode, type StageFlowNode } from './StageNode';
import { chooseInitialView, focusNote, READABLE_ZOOM, viewportFor, wholeViewport } from './initial-view';
import { countInView, groupsOf, intersects, nearRegion, stagesNear, viewRect, type Size, type Viewport } from './view-math';
import { DagMinimap, OverviewCanvas } from './DagCanvases';
import { stateColours, type CanvasScene } from './stage-canvas';

const NODE_TYPES = { stage: StageNode };
const NODE: Size = { width: NODE_WIDTH, height: NODE_HEIGHT };
/** Above this many stages only the stages near the view are handed to React Flow (its stores take every node). */
const CULL_FROM = 120;
/** Below this zoom stages are drawn as coloured boxes on a canvas (names would be under ~7 px): the far-out level of detail. */
export const OVERVIEW_ZOOM = 0.5;
/** Above this many stages the far-out canvas leaves out edges (a wall of lines says nothing). */
const OVERVIEW_EDGES_MAX = 3000;

/** A node's own element: keyboard focus sits on React Flow's wrapper of it. */
function nodeIdOf(target: EventTarget | null): string | null {
  return target instanceof HTMLElement && target.classList.contains('react-flow__node') ? target.getAttribute('data-id') : null;
}

const same = (a: Viewport, b: Viewport) => Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5 && Math.abs(a.zoom - b.zoom) < 1e-4;

/**
 * The selected graph's stages as a DAG. The first paint comes from the linear layered layout (layer-layout.ts,
 * one pass) at any size; ELK (in its worker) refines a small graph after, while the person has not moved the view.
 * The view is ours (a controlled viewport): framed at a readable zoom (initial-view.ts); at a big size only the
 * stages near it go through React Flow; zoomed far out, every stage is a coloured box on one canvas. Keyboard:
 * Tab walks the stages (edges are not stops), Enter or Space opens the focused one. `matches`: the stages the
 * finder picks out; `lineage`: focus mode's stages (the rest dimmed); `focus`: a stage to centre the view on.
 */
export function GraphDag(props: {
  graphId: string;
  stages: GraphTopologyNode[];
  selectedStageId: string | null;
  attempts?: ReadonlyMap<string, { attempt: number; maxAttempts: number }>;
  matches?: Set<string> | null;
  lineage?: Set<string> | null;
  focus?: { id: string; seq: number } | null;
  onSelect(id: string): void;
}): React.JSX.Element {
  const { stages, selectedStageId, attempts, matches = null, lineage = null } = props;
  // the layout depends on the structure only: a state change re-colours, it never re-lays out
  const structure = useMemo(() => JSON.stringify(stages.map((s) => [s.id, s.dependsOn])), [stages]);
  const shape = useMemo(() => (JSON.parse(structure) as [string, string[]][]).map(([id, dependsOn]) => ({ id, dependsOn })), [structure]);
  const linear = useMemo(() => layerLayout(shape, SPACING), [shape]);
  const [refined, setRefined] = useState<{ structure: string; layout: LaidOut } | null>(null);
  const [moved, setMoved] = useState<Viewport | null>(null);
  const layout = refined?.structure === structure ? refined.layout : linear;

  // ELK refines a small graph's picture (fewer crossings) after the first paint, unless the person moved the view
  const movedRef = useRef(moved);
  movedRef.current = moved;
  useEffect(() => {
    if (shape.length > LARGE_GRAPH_STAGES || shape.length < 2) return;
    let live = true;
    layoutStages(shape)
      .then((better) => live && !movedRef.current && setRefined({ structure, layout: better }))
      .catch(() => undefined); // the linear layout stays: it is a complete picture
    return () => {
      live = false;
    };
  }, [shape, structure]);

  const wrap = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState<Size | null>(null);
  useLayoutEffect(() => {
    const el = wrap.current;
    if (!el) return;
    const measure = () => setSize((s) => (s && s.width === el.clientWidth && s.height === el.clientHeight ? s : { width: el.clientWidth, height: el.clientHeight }));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // the view chosen once per graph (what matters: failure, running stages, first rank), framed again on resize
  const chosen = useMemo(() => (size && size.width > 0 ? chooseInitialView(stages, layout, size) : null), [size !== null && size.width > 0, structure]);
  const framed = useMemo(() => (chosen && size ? viewportFor(chosen, layout, NODE, size) : null), [chosen, layout, size]);
  const vp = moved ?? framed;
  const move = (next: Viewport) => setMoved(next);

  // the selected stage stays in view when the canvas narrows (its panel opened beside it): the view pans, never zooms
  useEffect(() => {
    if (!vp || !size || !selectedStageId) return;
    const at = layout.positions.get(selectedStageId);
    if (!at) return;
    const view = viewRect(vp, size);
    const box = { x: at.x, y: at.y, width: NODE_WIDTH, height: NODE_HEIGHT };
    if (intersects(view, box) && box.x >= view.x && box.x + box.width <= view.x + view.width) return;
    const dx = box.x + box.width > view.x + view.width ? view.x + view.width - (box.x + box.width) - 24 / vp.zoom : box.x < view.x ? view.x - box.x + 24 / vp.zoom : 0;
    const dy = box.y + box.height > view.y + view.height ? view.y + view.height - (box.y + box.height) - 24 / vp.zoom : box.y < view.y ? view.y - box.y + 24 / vp.zoom : 0;
    if (dx !== 0 || dy !== 0) move({ ...vp, x: vp.x + dx * vp.zoom, y: vp.y + dy * vp.zoom });
  }, [size?.width, size?.height, selectedStageId]);

  // the finder's "go to": centred at a readable zoom (focus.seq changes each time, so going again re-centres)
  const done = useRef(-1);
  useEffect(() => {
    const f = props.focus;
    if (!f || done.current === f.seq || !size || !vp) return;
    const at = layout.positions.get(f.id);
    if (!at) return;
    done.current = f.seq;
    const zoom = Math.max(vp.zoom, READABLE_ZOOM);
    move({ zoom, x: size.width / 2 - (at.x + NODE_WIDTH / 2) * zoom, y: size.height / 2 - (at.y + NODE_HEIGHT / 2) * zoom });
  }, [props.focus, layout, size !== null]);

  const overview = vp !== null && vp.zoom < OVERVIEW_ZOOM;
  const cull = stages.length > CULL_FROM;
  const region = vp && size && cull && !overview ? nearRegion(vp, size) : null;
  const near = useMemo(() => (region ? stagesNear(shape, layout, NODE, region) : null), [region?.key, shape, layout]);
  // Tab walks the stages in view, not the ones drawn just outside it (a coarse key: rebuilt every 64 px of pan)
  const seen = vp && size ? viewRect(vp, size) : null;
  const seenKey = seen ? [seen.x, seen.y, seen.x + seen.width, seen.y + seen.height].map((n) => Math.round(n / 64)).join(',') : '';
  const dimmed = useMemo(() => (matches || lineage ? (id: string) => (matches !== null && !matches.has(id)) || (lineage !== null && !lineage.has(id)) : null), [matches, lineage]);

  const nodes = useMemo<StageFlowNode[]>(() => {
    if (overview) return [];
    const out: StageFlowNode[] = [];
    for (const stage of stages) {
      if (near && !near.has(stage.id)) continue;
      out.push({
        id: stage.id,
        type: 'stage',
        position: layout.positions.get(stage.id) ?? { x: 0, y: 0 },
        data: { stage, selected: stage.id === selectedStageId, attempt: attempts?.get(stage.id) ?? null },
        className: dimmed?.(stage.id) ? 'dimmed' : undefined,
        focusable: !near || !seen || intersects(seen, { ...(layout.positions.get(stage.id) ?? { x: 0, y: 0 }), ...NODE }),
        // known sizes: nothing is measured before it is placed
        width: NODE_WIDTH,
        height: NODE_HEIGHT,
        draggable: false,
        connectable: false,
      });
    }
    return out;
  }, [overview, near, near && seenKey, layout, stages, selectedStageId, attempts, dimmed]);

  const edges = useMemo<Edge[]>(() => {
    if (overview) return [];
    // one lookup table, not a search of every stage per edge (2,000 edges × 1,000 stages on a 25×40 lattice)
    const stateOf = new Map(stages.map((s) => [s.id, s.state]));
    const out: Edge[] = [];
    for (const s of stages) {
      if (near && !near.has(s.id)) continue;
      for (const d of s.dependsOn) {
        if (near && !near.has(d)) continue;
        out.push({ id: `${d}->${s.id}`, source: d, target: s.id, animated: s.state === 'running', className: `edge-${stateOf.get(d) ?? 'pending'}${dimmed?.(s.id) || dimmed?.(d) ? ' dimmed' : ''}` });
      }
    }
    return out;
  }, [overview, near, stages, dimmed]);

  const [colours, setColours] = useState<Record<string, string>>({});
  useEffect(() => {
    if (!wrap.current) return;
    const el = wrap.current;
    setColours(stateColours(el));
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    const update = () => setColours(stateColours(el));
    scheme.addEventListener('change', update);
    return () => scheme.removeEventListener('change', update);
  }, []);
  const groups = useMemo(() => groupsOf(shape), [shape]);
  const scene = useMemo<CanvasScene>(() => ({ stages, layout, node: NODE, colours, dimmed, edges: stages.length <= OVERVIEW_EDGES_MAX, groups }), [stages, layout, colours, dimmed, groups]);
  const inView = useMemo(() => (vp && size ? countInView(layout, NODE, viewRect(vp, size)) : 0), [vp, size, layout]);
  const whole = vp && size ? inView === stages.length : true;
  const note = !moved && chosen ? focusNote(chosen, stages.length) : null;
  const narrow = (size?.width ?? 0) < 700;

  return (
    // data-view: "moved" once the person moved the view, else the canvas size ("WxH") it was framed for;
    // data-in-view: how many stages the view shows (the benchmark waits for that many painted); data-lod
    <div
      ref={wrap}
      className="graph-dag"
      data-testid="graph-dag"
      data-view={moved ? 'moved' : size ? `${size.width}x${size.height}` : ''}
      data-in-view={inView}
      data-lod={overview ? 'overview' : 'nodes'}
      data-layout={refined?.structure === structure ? 'elk' : 'linear'}
      data-groups={groups?.size ?? 0}
      onKeyDown={(e) => {
        const id = (e.key === 'Enter' || e.key === ' ') && nodeIdOf(e.target);
        if (!id) return;
        e.preventDefault();
        props.onSelect(id);
      }}
    >
      {vp && size && (
        <ReactFlow
          key={props.graphId}
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          colorMode="system"
          minZoom={0.005}
          maxZoom={2}
          viewport={vp}
          onViewportChange={(next) => !same(next, vp) && move(next)}
          nodesDraggable={false}
          nodesConnectable={false}
          edgesFocusable={false}
          onNodeClick={(_, node) => props.onSelect(node.id)}
          onPaneClick={(e) => {
            if (!overview) return;
            // far out, a click on a stage's box opens it and zooms in to it
            const r = wrap.current!.getBoundingClientRect();
            const x = (e.clientX - r.left - vp.x) / vp.zoom;
            const y = (e.clientY - r.top - vp.y) / vp.zoom;
            const hit = stages.find((s) => {
              const at = layout.positions.get(s.id);
              return at && x >= at.x && x <= at.x + NODE_WIDTH && y >= at.y && y <= at.y + NODE_HEIGHT;
            });
            if (!hit) return;
            props.onSelect(hit.id);
            const at = layout.positions.get(hit.id)!;
            move({ zoom: READABLE_ZOOM, x: size.width / 2 - (at.x + NODE_WIDTH / 2) * READABLE_ZOOM, y: size.height / 2 - (at.y + NODE_HEIGHT / 2) * READABLE_ZOOM });
          }}
        >
          <Background gap={24} size={1} />
          {overview && <OverviewCanvas scene={scene} vp={vp} size={size} />}
          <Controls showInteractive={false} showFitView={false}>
            <ControlButton aria-label="fit view" title="Fit view: what matters, at a readable size" onClick={() => move(viewportFor(chooseInitialView(stages, layout, size), layout, NODE, size))}>
              <span aria-hidden="true">⤢</span>
            </ControlButton>
            <ControlButton aria-label="whole graph" title="Whole graph: every stage, small" onClick={() => move(wholeViewport(layout, size))}>
              <span aria-hidden="true">▦</span>
            </ControlButton>
          </Controls>
          {note && (
            <Panel position="bottom-center" className="dag-focus-note" data-testid="dag-focus-note">
              {note}
            </Panel>
          )}
          {!whole && (
            <Panel position="bottom-right" className="dag-minimap-panel">
              <DagMinimap
                scene={scene}
                vp={vp}
                size={size}
                box={narrow ? { width: 110, height: 80 } : { width: 200, height: 140 }}
                onCentre={(x, y) => move({ ...vp, x: size.width / 2 - x * vp.zoom, y: size.height / 2 - y * vp.zoom })}
              />
            </Panel>
          )}
        </ReactFlow>
      )}
    </div>
  );
}
