import { useState } from 'react';
import type { AgentRunView } from '../../../../src-main/common/methods/agents';
import { useRoom } from '../../room-context';
import { useReadyForReview } from '../../stores/ready-review';

/**
 * Agents on a task that sit idle at their prompt with new commits in their worktree: "ready for review?". The
 * person can complete the handoff for the agent (agent_complete) with a summary of their own; the handoff then
 * waits in the Inbox for review, and the agent's terminal ends with its work.
 */
export function ReadyForReview(): React.JSX.Element | null {
  const ready = useReadyForReview();
  if (ready.length === 0) return null;
  return (
    <section aria-label="Ready for review">
      {ready.map((run) => (
        <ReadyItem key={`${run.shellId}@${run.review?.head ?? ''}`} run={run} />
      ))}
    </section>
  );
}

function ReadyItem(props: { run: AgentRunView }): React.JSX.Element | null {
  const { client } = useRoom();
  const { run } = props;
  const [open, setOpen] = useState(false);
  const [summary, setSummary] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const review = run.review;
  if (!review || done) return null;
  const commits = `${review.commits} new commit${review.commits === 1 ? '' : 's'}`;

  async function complete(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    if (!review) return;
    setProblem(null);
    try {
      await client.call('agent_complete', { handoffId: review.handoffId, result: summary.trim() || `${commits} by ${run.participant}, completed for it by the person` });
      setDone(true);
    } catch (error) {
      setProblem((error as Error).message);
    }
  }

  return (
    <form className="ready-review" data-testid="ready-for-review" onSubmit={(e) => void complete(e)}>
      <p>
        <strong>{run.participant}</strong> waits at its prompt with {commits} in its worktree. Ready for review?
      </p>
      {open && (
        <textarea rows={3} aria-label="Summary" value={summary} maxLength={4000} placeholder="What it did (the handoff's result)" onChange={(e) => setSummary(e.target.value)} autoFocus />
      )}
      {problem && (
        <p className="form-problem" role="alert">
          {problem}
        </p>
      )}
      <div className="ready-actions">
        {open ? (
          <>
            <button type="button" className="small" onClick={() => setOpen(false)}>
              Not yet
            </button>
            <button type="submit" className="primary small" data-testid="complete-for-agent">
              Complete for it
            </button>
          </>
        ) : (
          <button type="button" className="primary small" onClick={() => setOpen(true)} data-testid="ready-open">
            Complete for it…
          </button>
        )}
      </div>
    </form>
  );
}
