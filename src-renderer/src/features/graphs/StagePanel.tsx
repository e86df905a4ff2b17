import type { GraphTopologyNode, StageView } from '../../../../src-main/common/methods/graphs';
import type { StageLog } from '../../stores/graphs-store';
import { durationText, isEnded, stateLabel } from './stage-state';
import { waitingText } from './StageNode';
import { StageLogView } from './StageLogView';

/** One stage: its state and why, attempt, timings, its live log; cancel it; open its terminal if it has one. */
export function StagePanel(props: {
  node: GraphTopologyNode;
  stage: StageView | null;
  log: StageLog | null;
  terminalId: string | null;
  onCancel(): void;
  onOpenTerminal(): void;
  onClose(): void;
}): React.JSX.Element {
  const { node, stage, log } = props;
  const waiting = waitingText(node);
  const command = Array.isArray(node.command) ? node.command.join(' ') : node.command;

  return (
    <aside className="stage-panel" aria-label={`Stage ${node.id}`}>
      <header className="stage-panel-head">
        <h3 className="truncate" title={node.id}>{node.id}</h3>
        <span className={`state-chip state-${node.state}`}>{stateLabel(node.state, node.retrying)}</span>
        <button type="button" className="link-button" aria-label="Close stage panel" onClick={props.onClose}>
          ✕
        </button>
      </header>
      <dl className="stage-facts">
        <dt>Command</dt>
        <dd className="mono command" data-testid="stage-command">{command}</dd>
        {waiting && (
          <>
            <dt>Blocked</dt>
            <dd>{waiting}</dd>
          </>
        )}
        {stage?.errorCode && (
          <>
            <dt>Error</dt>
            <dd className="error-text" data-testid="stage-error">{stage.errorCode}{stage.message ? `: ${stage.message}` : ''}</dd>
          </>
        )}
        {(stage?.exitCode !== null && stage?.exitCode !== undefined) && (
          <>
            <dt>Exit code</dt>
            <dd data-testid="stage-exit">{stage.exitCode}</dd>
          </>
        )}
        {stage?.signal && (
          <>
            <dt>Signal</dt>
            <dd>{stage.signal}</dd>
          </>
        )}
        <dt>Attempt</dt>
        <dd>{stage ? `${stage.attempt} of ${stage.maxAttempts}` : '—'}</dd>
        <dt>Started</dt>
        <dd>{stage?.startedAt ? new Date(stage.startedAt).toLocaleTimeString() : '—'}</dd>
        <dt>Duration</dt>
        <dd>{durationText(stage?.durationMs ?? null)}</dd>
      </dl>
      <div className="stage-actions">
        {!isEnded(node.state) && (
          <button type="button" className="danger" onClick={props.onCancel}>
            Cancel stage
          </button>
        )}
        {props.terminalId && (
          <button type="button" onClick={props.onOpenTerminal}>
            Open in terminal
          </button>
        )}
      </div>
      <StageLogView log={log} stageId={node.id} />
    </aside>
  );
}
