import { useEffect, useRef } from 'react';
import type { GraphTopologyNode, StageView } from '../../../../src-main/common/methods/graphs';
import type { StageLog } from '../../stores/graphs-store';
import { durationText, isEnded, stateLabel } from './stage-state';
import { waitingText } from './StageNode';

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
  const logRef = useRef<HTMLPreElement>(null);
  const records = log?.records.length ?? 0;
  useEffect(() => {
    const el = logRef.current;
    if (el) el.scrollTop = el.scrollHeight; // follow the newest output
  }, [records]);
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
        <dd className="mono truncate" title={command}>{command}</dd>
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
      <div className="stage-log-head muted">
        Log{log?.spooled ? ' (archived)' : ''}
        {log?.truncated ? ' — older lines are not shown' : ''}
      </div>
      <pre className="stage-log" ref={logRef} data-testid="stage-log" tabIndex={0}>
        {log === null ? 'Reading…' : log.records.length === 0 ? 'No output yet.' : log.records.map((r) => (
          <span key={r.seq} className={`log-${r.stream}`}>{r.text}</span>
        ))}
      </pre>
    </aside>
  );
}
