import { useState } from 'react';
import type { EvidenceRun, WorkspaceView } from '../../../../src-main/common/handoff-dto';
import { useRoom } from '../../room-context';
import { describeError } from '../../stores/coalesced-read';
import { SentComments } from './review-comments';

/** A failed stage of a run in the workspace: one click shows the end of its log. */
function FailedStage(props: { graphId: string; stageId: string; state: string }): React.JSX.Element {
  const { client } = useRoom();
  const [log, setLog] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  async function toggle(): Promise<void> {
    setOpen((o) => !o);
    if (log !== null) return;
    try {
      const r = await client.call('tasks_status', { graphId: props.graphId, stageId: props.stageId });
      const records = 'log' in r ? r.log.records : [];
      setLog(records.map((rec) => rec.text).join('') || '(its log is empty)');
    } catch (e) {
      setLog(describeError(e, 'could not read the log'));
    }
  }
  return (
    <li className="failed-stage">
      <button type="button" className="link" aria-expanded={open} onClick={() => void toggle()} data-testid="failed-stage">
        {props.stageId}
      </button>{' '}
      <span className="chip chip-failed">{props.state}</span>
      {open && <pre className="stage-log-tail" data-testid="failed-stage-log">{log ?? 'Reading the log…'}</pre>}
    </li>
  );
}

export function Runs(props: { runs: EvidenceRun[] }): React.JSX.Element {
  if (props.runs.length === 0) return <p className="muted small">Nothing was tested here: the agent ran no checks (no graph) on this work.</p>;
  return (
    <ul className="review-runs" aria-label="Runs in the workspace">
      {props.runs.map((run) => (
        <li key={run.graphId} data-testid="review-run">
          <span className={`chip chip-${run.state}`}>{run.state}</span> <strong>{run.name ?? run.graphId}</strong> <code className="muted">{run.graphId}</code>
          {run.failed.length > 0 && (
            <ul>
              {run.failed.map((f) => (
                <FailedStage key={f.stageId} graphId={run.graphId} stageId={f.stageId} state={f.state} />
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}

export function WorkspaceLine(props: { w: WorkspaceView }): React.JSX.Element {
  const { w } = props;
  return (
    <>
    <p className="muted small workspace-line">
      <code>{w.branch}</code>
      {w.host && (
        <>
          {' '}
          on host{' '}
          <span className="badge small badge-host host-mark" data-testid="workspace-host" title={`Its worktree is on ${w.host}, in its clone ${w.hostRepo ?? ''}; the work was fetched into ${w.repo} for this review`}>
            {w.host}
          </span>
        </>
      )}{' '}
      from <code>{w.base}</code> at <code>{w.baseCommit.slice(0, 12)}</code> in <span className="truncate" title={w.repo}>{w.repo}</span> · workspace{' '}
      <strong data-testid="workspace-state">{w.state}</strong>
      {w.merge && (
        <>
          {' '}
          into <code>{w.merge.into}</code> as <code>{w.merge.commit.slice(0, 12)}</code>
          {w.merge.fastForward ? ' (fast-forward)' : ''} by {w.merge.by}
        </>
      )}
      {w.note && <> · {w.note}</>}
      {w.continues && (
        <span className="continues" data-testid="workspace-continues">
          {' '}
          · goes on from <code>{w.continues.handoffId}</code>, rejected{w.continues.reason ? `: ${w.continues.reason}` : ''}
        </span>
      )}
    </p>
    {w.continues?.comments && <SentComments comments={w.continues.comments} title={`The line comments it went back with (on ${w.continues.reviewedHead?.slice(0, 7) ?? 'the commit reviewed'}):`} />}
    </>
  );
}

