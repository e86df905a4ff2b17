import { useState } from 'react';
import type { HandoffView } from '../../../../src-main/common/handoff-dto';
import { useRoom } from '../../room-context';

/**
 * "Follow up" on a rejected handoff: the same participant goes on in the same worktree (handoff_create with
 * continues). When the room started that agent (a client it can start again), the client is started again there on
 * the follow-up (agent_start with continues, going on with its own conversation where it can, the rejection's
 * line comments in its first prompt; on the follow-up Request changes made, when there is one); otherwise the
 * follow-up handoff waits for the agent to accept it.
 */
export function FollowUp(props: { handoff: HandoffView; onDone(text: string): void }): React.JSX.Element | null {
  const { client } = useRoom();
  const h = props.handoff;
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const w = h.workspace;
  if (h.status !== 'rejected' || !h.assignee || !w?.path || (w.state !== 'ready' && w.state !== 'kept')) return null;
  const assignee = h.assignee;
  const path = w.path;

  async function follow(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    const task = text.trim() || `Follow up on handoff ${h.id}: ${h.decision?.reason ?? 'see the rejection'}`;
    setBusy(true);
    setProblem(null);
    try {
      const { agents, earlier } = await client.call('agent_list', {});
      const run = earlier.find((r) => r.participant === assignee) ?? agents.find((a) => a.participant === assignee);
      // a "command" run starts again only with its program (the room keeps it while it runs)
      const command = run && 'command' in run ? run.command : undefined;
      if (run && (run.client !== 'command' || command)) {
        const { agent } = await client.call('agent_start', { client: run.client, cwd: path, task, continues: h.id, ...(run.client === 'command' ? { command } : { resume: true }) });
        props.onDone(`${agent.participant} goes on in ${agent.cwd} (handoff ${agent.handoffId ?? ''}), in terminal ${agent.shellId}.`);
      } else {
        const { handoff } = await client.call('handoff_create', { summary: task, to: assignee, continues: h.id });
        props.onDone(`Handoff ${handoff.id} waits for ${assignee} to accept it, in the same worktree.`);
      }
      setOpen(false);
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="follow-up" aria-label="Follow up">
      <p>
        The worktree stays at <code>{path}</code>. Send <strong>{assignee}</strong> back to it with what to change.
      </p>
      {open && (
        <form onSubmit={(e) => void follow(e)} className="follow-form">
          <textarea rows={3} aria-label="What to do next" value={text} maxLength={2000} placeholder={h.decision?.reason ?? 'What to change'} onChange={(e) => setText(e.target.value)} autoFocus />
          {problem && (
            <p className="form-problem" role="alert">
              {problem}
            </p>
          )}
          <div className="follow-actions">
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={busy} data-testid="follow-up-send">
              {busy ? 'Starting…' : `Follow up with ${assignee}`}
            </button>
          </div>
        </form>
      )}
      {!open && (
        <div className="follow-actions">
          <button type="button" className="primary" onClick={() => setOpen(true)} data-testid="follow-up">
            Follow up
          </button>
        </div>
      )}
    </section>
  );
}
