import { useEffect, useState } from 'react';
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
  /** Focus mode is on: the graph dims everything but this stage's ancestors and descendants (`lineageSize` stages). */
  focused: boolean;
  lineageSize: number;
  onFocusMode(): void;
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
        {stage?.host !== undefined && (
          <>
            <dt>Host</dt>
            <dd data-testid="stage-host" className={stage.hostReachable === false ? 'error-text' : undefined}>
              {stage.host}
              {stage.hostReachable === false ? ': unreachable now; the stage goes on there, its state unknown here until it is back' : ''}
            </dd>
          </>
        )}
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
        <dd data-testid="stage-duration">
          <Duration stage={stage} />
        </dd>
      </dl>
      <div className="stage-actions">
        <button type="button" aria-pressed={props.focused} title="Dim every stage but this one's ancestors and descendants (key: F)" onClick={props.onFocusMode}>
          {props.focused ? `Focused: ${props.lineageSize} stages` : 'Focus'}
        </button>
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

/** How long the stage ran, or, while it runs, how long it has been running (counted on each second). */
function Duration(props: { stage: StageView | null }): React.JSX.Element {
  const { stage } = props;
  const running = stage !== null && stage.durationMs === null && stage.startedAt !== null && !stage.endedAt;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  if (running && stage?.startedAt) return <>{durationText(Math.max(0, now - Date.parse(stage.startedAt)))} so far</>;
  return <>{durationText(stage?.durationMs ?? null)}</>;
}
