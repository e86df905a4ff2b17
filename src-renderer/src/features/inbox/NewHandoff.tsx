import { useState } from 'react';
import { useRoom } from '../../room-context';
import { useParticipants } from '../../stores/feature-stores';
import './new-handoff.css';

/**
 * The person hands work to a participant (handoff_create, as `ce handoff create --to NAME` does): a summary, the
 * participant it is addressed to, and optionally a repository (and base) the work gets a worktree of its own in.
 * The agent accepts it from its own client; its result comes back to this Inbox.
 */
export function NewHandoff(props: { onClose(): void; onCreated(text: string): void }): React.JSX.Element {
  const { client } = useRoom();
  const participants = useParticipants((s) => s.participants).filter((p) => p.revokedAt === null && p.role === 'agent' && p.capabilities.includes('write'));
  const [to, setTo] = useState('');
  const [summary, setSummary] = useState('');
  const [repo, setRepo] = useState('');
  const [base, setBase] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function create(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    if (!summary.trim()) return setProblem('say what the work is (the summary)');
    if (base.trim() && !repo.trim()) return setProblem('a base is for a repository: name the repository too');
    setBusy(true);
    setProblem(null);
    try {
      const { handoff } = await client.call('handoff_create', {
        summary: summary.trim(),
        ...(to ? { to } : {}),
        ...(repo.trim() ? { workspace: { repo: repo.trim(), ...(base.trim() ? { base: base.trim() } : {}) } } : {}),
      });
      props.onCreated(`Handoff ${handoff.id} ${to ? `is addressed to ${to}` : 'waits for anyone to accept it'}${handoff.workspace ? `; its worktree is made in ${handoff.workspace.repo} when it is accepted` : ''}.`);
      props.onClose();
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="new-handoff" role="dialog" aria-label="New handoff" onKeyDown={(e) => e.key === 'Escape' && props.onClose()}>
      <form onSubmit={(e) => void create(e)}>
        <h3>Hand work to an agent</h3>
        <div className="field">
          <label htmlFor="handoff-to">To</label>
          <select id="handoff-to" value={to} onChange={(e) => setTo(e.target.value)}>
            <option value="">anyone who takes it</option>
            {participants.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="handoff-summary">Summary</label>
          <textarea id="handoff-summary" rows={4} value={summary} maxLength={2000} placeholder="What to do, and what done looks like" onChange={(e) => setSummary(e.target.value)} autoFocus />
        </div>
        <div className="field-row">
          <div className="field">
            <label htmlFor="handoff-repo">Repository (optional)</label>
            <input id="handoff-repo" type="text" value={repo} placeholder="a worktree of its own in, e.g. /home/me/src/app" onChange={(e) => setRepo(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="handoff-base">Base</label>
            <input id="handoff-base" type="text" value={base} placeholder="current branch" onChange={(e) => setBase(e.target.value)} />
          </div>
        </div>
        {problem && (
          <p className="form-problem" role="alert" data-testid="new-handoff-problem">
            {problem}
          </p>
        )}
        <div className="new-handoff-actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy} data-testid="create-handoff">
            {busy ? 'Sending…' : 'Hand it over'}
          </button>
        </div>
      </form>
    </div>
  );
}
