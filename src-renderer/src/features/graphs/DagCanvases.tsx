import { useEffect, useRef } from 'react';
import { drawScene, prepare, type CanvasScene } from './stage-canvas';
import { viewRect, type Size, type Viewport } from './view-math';

/**
 * The far-out level of detail: below a zoom where names cannot be read, every stage in view is a box (or a dot)
 * in its state's colour, drawn on one canvas under React Flow's controls. Clicks reach the pane beneath.
 */
export function OverviewCanvas(props: { scene: CanvasScene; vp: Viewport; size: Size }): React.JSX.Element {
  const ref = useRef<HTMLCanvasElement>(null);
  const { scene, vp, size } = props;
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const canvas = ref.current;
      const ctx = canvas && prepare(canvas, size);
      if (!ctx) return;
      drawScene(ctx, scene, vp, viewRect(vp, size));
      canvas.dataset.drawn = `${vp.x},${vp.y},${vp.zoom}`;
    });
    return () => cancelAnimationFrame(frame);
  }, [scene, vp, size]);
  return <canvas ref={ref} className="dag-overview" data-testid="dag-overview" style={{ width: size.width, height: size.height }} aria-hidden="true" />;
}

/**
 * The whole graph small, with the part in view outlined: press or drag in it to move the view there. Drawn on a
 * canvas from the layout (React Flow's minimap draws only the nodes it was given, and it is given only those near
 * the view).
 */
export function DagMinimap(props: { scene: CanvasScene; vp: Viewport; size: Size; box: Size; onCentre(x: number, y: number): void }): React.JSX.Element {
  const ref = useRef<HTMLCanvasElement>(null);
  const { scene, vp, size, box } = props;
  const { width, height } = scene.layout;
  const scale = Math.min(box.width / Math.max(1, width), box.height / Math.max(1, height));
  const drawn = { width: Math.max(40, width * scale), height: Math.max(30, height * scale) };
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const canvas = ref.current;
      const ctx = canvas && prepare(canvas, drawn);
      if (!ctx) return;
      const whole = { x: 0, y: 0, width, height };
      drawScene(ctx, { ...scene, edges: false, groups: null }, { x: 0, y: 0, zoom: scale }, whole);
      const v = viewRect(vp, size);
      ctx.strokeStyle = getComputedStyle(canvas).color || '#2f6fdb';
      ctx.lineWidth = 2;
      ctx.strokeRect(v.x * scale, v.y * scale, v.width * scale, v.height * scale);
    });
    return () => cancelAnimationFrame(frame);
  }, [scene, vp, size, scale, drawn.width, drawn.height]);
  const centre = (e: React.PointerEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    props.onCentre((e.clientX - r.left) / scale, (e.clientY - r.top) / scale);
  };
  return (
    <canvas
      ref={ref}
      className="dag-minimap"
      data-testid="dag-minimap"
      role="img"
      aria-label="Minimap of the whole graph: press or drag to move the view"
      style={{ width: drawn.width, height: drawn.height }}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        centre(e);
      }}
      onPointerMove={(e) => e.buttons === 1 && centre(e)}
    />
  );
}
