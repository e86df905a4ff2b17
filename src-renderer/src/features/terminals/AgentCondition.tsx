import { useState } from 'react';
import type { ShellView } from '../../../../src-main/common/methods/shells';
import { clock, conditionText, resumeText } from '../../../../src-main/common/agent-condition-text';
import { useRoom } from '../../room-context';
import { useNow } from '../../shared/use-now';

/**
 * An agent's stall or usage limit, under its terminal's header: what the room saw and, while limited, the
 * resume it counts down to with Cancel (or Resume at the reset / Resume now when none is set: the room never
 * types into it at a limit unless its policy or the person says so).
 */
export function AgentCondition(props: { shell: ShellView }): React.JSX.Element | null {
  const { client } = useRoom();
  const { shell } = props;
  const condition = shell.condition;
  const now = useNow(15_000, Boolean(condition));
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!shell.alive || !condition || (!condition.stalled && !condition.limited)) return null;
  const act = (action: 'resume_at_reset' | 'resume_now' | 'cancel') => {
    setBusy(true);
    setProblem(null);
    client.call('agent_limit', { shellId: shell.id, action }).then(
      () => setBusy(false),
      (error: Error) => {
        setBusy(false);
        setProblem(error.message);
      },
    );
  };
  const limited = condition.limited;
  const resume = resumeText(condition, now);
  return (
    <div className="agent-condition" role="status" data-testid="agent-condition">
      {limited ? (
        <p>
          <strong>{conditionText(condition, now)}</strong> <span className="agent-condition-text">“{limited.text}”</span>
          {resume ? <span data-testid="resume-countdown"> · {resume}</span> : limited.until ? ' · it will not be resumed by itself' : ' · its client showed no reset time'}
        </p>
      ) : (
        <p>
          <strong>{conditionText(condition, now)}</strong> · busy, but its terminal, CPU and processes have been still since {clock(new Date(condition.stalled?.quietSince ?? now), now)}
        </p>
      )}
      {limited && (
        <div className="agent-condition-actions">
          {limited.resumeAt ? (
            <button type="button" className="small" disabled={busy} data-testid="cancel-resume" onClick={() => act('cancel')}>
              Cancel
            </button>
          ) : (
            limited.until && (
              <button type="button" className="small" disabled={busy} data-testid="resume-at-reset" onClick={() => act('resume_at_reset')}>
                Resume at {clock(new Date(limited.until), now)}
              </button>
            )
          )}
          <button type="button" className="small" disabled={busy} data-testid="resume-now" title="Type its continue now" onClick={() => act('resume_now')}>
            Resume now
          </button>
        </div>
      )}
      {problem && (
        <p className="form-problem" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
