import { forwardRef, useEffect, useState } from 'react';
import type { HandoffView, LineComment } from '../../../../src-main/common/handoff-dto';
import { useRoom } from '../../room-context';
import { describeError } from '../../stores/coalesced-read';
import type { WaitingKind } from '../../stores/inbox-store';
import { DecisionPanel, type DecisionExtras, type DecisionHandle } from './DecisionPanel';
import { useMergePreview } from './review-preview';
import { HandoffTimeline } from '../../shared/handoff/HandoffTimeline';
import { InputRequestForm } from './InputRequestForm';
import { usePendingDecisions } from './pending-decision';
import { ArtifactList, ResultMarkdown } from '../../shared/handoff/ResultView';
import { WorkspaceReview } from './WorkspaceReview';
import { ConfirmDialog } from '../../shared/ConfirmDialog';

function StatusChips(props: { handoff: HandoffView }): React.JSX.Element {
  const h = props.handoff;
  const decision = h.decision ? `${h.decision.approved ? 'approved' : 'rejected'} by ${h.decision.by}` : 'no decision yet';
  return (
    <dl className="status-chips">
      <div>
        <dt>Handoff</dt>
        <dd className={`chip chip-${h.status}`} data-testid="handoff-status">
          {h.status.replace('_', ' ')}
        </dd>
      </div>
      <div>
        <dt>Task</dt>
        <dd className={`chip chip-${h.task?.status ?? 'gone'}`} data-testid="task-status">
          {h.task ? h.task.status.replace('_', ' ') : 'deleted after its TTL'}
        </dd>
      </div>
      <div>
        <dt>Decision</dt>
        <dd className="chip" data-testid="decision">
          {decision}
        </dd>
      </div>
    </dl>
  );
}

/** The person finishes work they took on: the result (markdown) the owner will read and decide on. */
function CompleteForm(props: { onComplete(result: string): Promise<unknown> }): React.JSX.Element {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="decide complete-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim() === '') return;
        setBusy(true);
        void props.onComplete(text.trim()).finally(() => setBusy(false));
      }}
    >
      <label htmlFor="complete-result">Your result (markdown: what you did, where it is)</label>
      <textarea id="complete-result" rows={4} value={text} maxLength={200_000} onChange={(e) => setText(e.target.value)} />
      <button type="submit" className="primary" disabled={busy || text.trim() === ''}>
        Complete
      </button>
    </form>
  );
}

/**
 * What approving can merge: the reviewed commit (the evidence's head, by its id: never what the branch holds
 * now) into the base branch, when the worktree has commits past its base.
 */
function mergeTarget(h: HandoffView): { into: string; commit: string } | null {
  const w = h.workspace;
  if (!w?.baseBranch || !w.evidence || w.evidence.commitCount === 0 || (w.state !== 'ready' && w.state !== 'kept')) return null;
  return { into: w.baseBranch, commit: w.evidence.head };
}

/** A refusal of approve-and-merge because the work's branch moved after completion: the room offers to re-capture. */
const offersRecapture = (problem: string | null): boolean => problem !== null && problem.includes('handoff_recapture');

/** One waiting handoff: who asked whom, its three records, the result or the questions, and its timeline. */
export const HandoffDetail = forwardRef<DecisionHandle, { handoff: HandoffView; kind: WaitingKind | null; onChanged(): void }>(function HandoffDetail({ handoff: h, kind, onChanged }, ref) {
  const { client } = useRoom();
  const [error, setError] = useState<string | null>(null);

  /** One step on the handoff: its failure shown in words (and answered), and the inbox re-read either way. */
  async function step(failed: string, call: () => Promise<unknown>, here = true): Promise<string | null> {
    let problem: string | null = null;
    try {
      await call();
    } catch (e) {
      problem = describeError(e, failed);
    }
    if (here || problem === null) setError(here ? problem : null);
    onChanged();
    return problem;
  }

  const queue = usePendingDecisions();
  const merging = mergeTarget(h);
  const preview = useMergePreview(h);
  // the person's comments on lines of the diff, until they are sent with a rejection (request changes)
  const [comments, setComments] = useState<LineComment[]>([]);
  const [cancelling, setCancelling] = useState(false);
  useEffect(() => setComments([]), [h.id]);
  const decide = async (approved: boolean, text: string, merge: boolean, extras: DecisionExtras = {}): Promise<void> => {
    const send = () =>
      step(approved ? 'could not approve' : 'could not reject', () =>
        approved
          ? client.call('handoff_approve', { handoffId: h.id, ...(text ? { reason: text } : {}), ...(merge && merging ? { merge: true, commit: merging.commit } : {}) })
          : client.call('handoff_reject', { handoffId: h.id, reason: text, ...(extras.comments?.length ? { comments: extras.comments } : {}), ...(extras.again ? { again: true } : {}) }).then((r) => {
              // nobody read it in a terminal (the agent's ended with its work): say where it is started again
              if (r.followUp && r.typedInto === 0) after = `Its agent${r.followUp.to ? `, ${r.followUp.to},` : ''} is not running: Follow up on it in History starts it again in the same worktree, with your comments as its first prompt.`;
            }),
      );
    let after: string | null = null;
    // in the inbox a decision waits out a short undo window first (pending-decision.tsx)
    if (queue) queue.schedule({ handoffId: h.id, summary: h.summary, approved, send, after: () => after });
    else await send();
  };
  const answer = async (key: string, action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>) => {
    const problem = await step('could not send the answer', () => client.call('handoff_answer_input', { handoffId: h.id, answers: { [key]: { action, ...(content ? { content } : {}) } } }), false);
    const who = h.assignee ?? 'the agent';
    if (!problem) queue?.tell(h.id, action === 'accept' ? `Answer sent to ${who}: “${h.summary}”.` : action === 'decline' ? `Declined ${who}'s question: “${h.summary}”.` : `Cancelled ${who}'s question: “${h.summary}”.`);
    return problem;
  };
  const accept = () => step('could not take it on', () => client.call('handoff_accept', { handoffId: h.id }));
  const recapture = () => step('could not re-capture the evidence', () => client.call('handoff_recapture', { handoffId: h.id }));
  const complete = (result: string) => step('could not complete it', () => client.call('handoff_complete', { handoffId: h.id, result }));

  async function cancel(reason: string): Promise<void> {
    await step('could not cancel', () => client.call('handoff_cancel', { handoffId: h.id, ...(reason ? { reason: reason.slice(0, 2000) } : {}) }));
  }

  const requests = Object.entries(h.task?.inputRequests ?? {});
  return (
    <article className="handoff-detail" data-handoff-id={h.id} aria-label="Handoff">
      <header>
        <h2>{h.summary}</h2>
        <p className="muted who">
          <strong>{h.owner}</strong> asked <strong>{h.to ?? 'anyone'}</strong>
          {h.assignee && h.assignee !== h.to ? <> · worked on by <strong>{h.assignee}</strong></> : null} ·{' '}
          <time dateTime={h.createdAt}>{new Date(h.createdAt).toLocaleString()}</time> · <code>{h.id}</code>
        </p>
        <StatusChips handoff={h} />
      </header>
      {error && (
        <p className="form-problem" role="alert">
          {error}
          {offersRecapture(error) && (
            <>
              {' '}
              <button type="button" onClick={() => void recapture()} data-testid="recapture">
                Re-capture the evidence
              </button>
            </>
          )}
        </p>
      )}
      {h.constraints && (
        <section>
          <h3>Constraints</h3>
          <p className="constraints">{h.constraints}</p>
        </section>
      )}
      {h.artifacts.length > 0 && (
        <section>
          <h3>Artifacts given</h3>
          <ArtifactList artifacts={h.artifacts} />
        </section>
      )}
      {kind === 'input' && requests.length > 0 && (
        <section>
          <h3>{h.assignee ?? 'The agent'} asks</h3>
          {requests.map(([key, request]) => (
            <InputRequestForm key={`${key}-${h.updatedAt}`} requestKey={key} request={request} onAnswer={answer} />
          ))}
        </section>
      )}
      {h.result && (
        <section>
          <h3>
            Result <span className="muted">by {h.result.completedBy}</span>
          </h3>
          <ResultMarkdown text={h.result.text} />
          <ArtifactList artifacts={h.result.artifacts} />
        </section>
      )}
      <WorkspaceReview handoff={h} preview={h.status === 'result_ready' ? null : preview} comments={h.status === 'result_ready' ? comments : null} onComments={setComments} />
      {h.status === 'result_ready' && (
        <DecisionPanel key={`${h.id}:${merging?.commit ?? ''}`} ref={ref} onDecide={decide} mergeInto={merging?.into ?? null} mergeCommit={merging?.commit ?? null} preview={preview} comments={comments} assignee={h.assignee} />
      )}
      {kind === 'addressed' && (
        <div className="actions">
          <p className="notice">{h.owner} asks you to do this. Take it on (you become its assignee, and finish it here with a result), or cancel it (its owner hears why).</p>
          <button type="button" className="primary" onClick={() => void accept()} data-testid="accept-handoff">
            Take it on
          </button>{' '}
          <button type="button" className="danger" onClick={() => setCancelling(true)}>
            Cancel handoff
          </button>
          {cancelling && (
            <ConfirmDialog
              title="Cancel this handoff?"
              message={`“${h.summary}” ends as cancelled; ${h.owner} is told.`}
              confirm="Cancel handoff"
              reason={{ label: 'Why? (optional, the owner reads this)', maxLength: 2000 }}
              onConfirm={(reason) => void cancel(reason)}
              onClose={() => setCancelling(false)}
            />
          )}
        </div>
      )}
      {kind === 'doing' && <CompleteForm onComplete={complete} />}
      <section>
        <h3>Timeline</h3>
        <HandoffTimeline handoffId={h.id} version={h.updatedAt} />
      </section>
    </article>
  );
});
