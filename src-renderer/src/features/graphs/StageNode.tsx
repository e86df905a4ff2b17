import { memo } from 'react';
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import type { GraphTopologyNode } from '../../../../src-main/common/methods/graphs';
import { stateLabel } from './stage-state';

export type StageNodeData = { stage: GraphTopologyNode; selected: boolean; attempt: { attempt: number; maxAttempts: number } | null };
export type StageFlowNode = Node<StageNodeData, 'stage'>;

/** What a pending stage waits on, in words: its unfinished dependencies, and/or a free parallelism slot. */
export function waitingText(stage: GraphTopologyNode): string | null {
  const w = stage.waitingOn;
  if (!w) return null;
  const parts: string[] = [];
  if (w.stages.length > 0) parts.push(`waits on ${w.stages.map((s) => s.id).join(', ')}`);
  if (w.slot) parts.push('waits for a free slot');
  return parts.length > 0 ? parts.join('; ') : null;
}

/** One stage: its id, its state in words and colour, and what it waits on or why it ended badly. */
export const StageNode = memo(function StageNode({ data }: NodeProps<StageFlowNode>): React.JSX.Element {
  const { stage } = data;
  const waiting = waitingText(stage);
  const tries = data.attempt && data.attempt.maxAttempts > 1 && data.attempt.attempt > 1 ? `attempt ${data.attempt.attempt} of ${data.attempt.maxAttempts}` : null;
  const detail = [waiting ?? (stage.errorCode ? stage.errorCode : stage.state === 'running' && stage.ready ? 'ready' : null), tries].filter(Boolean).join(' · ') || null;
  return (
    <div className={`stage-node state-${stage.state} ${data.selected ? 'selected' : ''}`} data-stage-id={stage.id} data-state={stage.state} data-attempt={data.attempt?.attempt} title={stage.id}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="stage-node-id truncate">{stage.id}</div>
      <div className="stage-node-state">{stateLabel(stage.state, stage.retrying)}</div>
      {detail && <div className="stage-node-detail truncate" title={detail}>{detail}</div>}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});
