import { useEffect, useRef, useState } from 'react';
import { Panel, useReactFlow, useStore as useFlowStore } from '@xyflow/react';
import type { GraphTopologyNode } from '../../../../src-main/common/methods/graphs';
import { chooseInitialView, focusNote, READABLE_ZOOM, type Extent, type InitialView } from './initial-view';

/**
 * Frames the graph when its canvas first has a size, and again when the canvas changes size (the stage panel
 * opened, the window was resized) for as long as the person has not moved the view themselves: the whole graph
 * when it is readable at fit, else a readable zoom on what matters (initial-view.ts), with a note saying so.
 * The choice is made once per graph shown. A refit is immediate, never animated: a node never slides away
 * from under a pointer that is about to click it. Once the person pans, zooms or fits, their view is kept
 * (opening a stage's panel does not throw them back to the start).
 *
 * `onFramed` reports the canvas size the view was last framed for ("WxH"), so the page can say the view is settled.
 */
export function ViewFraming(props: { stages: readonly GraphTopologyNode[]; drawing: Extent; moved: boolean; onFramed(size: string): void }): React.JSX.Element | null {
  const { fitView } = useReactFlow();
  const width = useFlowStore((s) => s.width);
  const height = useFlowStore((s) => s.height);
  const chosen = useRef<InitialView | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const { stages, drawing, moved, onFramed } = props;

  useEffect(() => {
    if (width <= 0 || height <= 0 || moved) return;
    if (chosen.current === null) {
      chosen.current = chooseInitialView(stages, drawing, { width, height });
      setNote(focusNote(chosen.current, stages.length));
    }
    const view = chosen.current;
    const options =
      view.kind === 'all'
        ? { padding: 0.08, maxZoom: 1 }
        : { nodes: view.ids.map((id) => ({ id })), minZoom: READABLE_ZOOM, maxZoom: 1, padding: 0.2 };
    let live = true;
    const frame = requestAnimationFrame(() => {
      void fitView(options).then(() => live && onFramed(`${width}x${height}`));
    });
    return () => {
      live = false;
      cancelAnimationFrame(frame);
    };
    // the stages' states change live; the framing follows the canvas size only
  }, [width, height, moved, fitView]);

  // once the person moves the view themselves the note no longer describes it
  if (!note || moved) return null;
  return (
    <Panel position="top-left" className="dag-focus-note" data-testid="dag-focus-note">
      {note}
    </Panel>
  );
}
