import { useState } from 'react';
import type { ParticipantView } from '../../../../src-main/common/dto';

/**
 * What each agent's shells and graph stages may write: their working folder, temp folders and tool caches
 * always (the sandbox keeps the rest read-only), and the folders the person adds here (participant_folders;
 * only the operator may). The list follows the room live: every change is a participant.* event.
 */
export function WritableFoldersCard(props: {
  participants: ParticipantView[];
  /** Each resolves with the room's refusal (shown under that agent), or null. */
  onAdd(name: string, folder: string): Promise<string | null>;
  onRemove(name: string, folder: string): Promise<string | null>;
}): React.JSX.Element {
  const agents = props.participants.filter((p) => p.role === 'agent' && p.revokedAt === null);
  return (
    <section className="card" aria-label="Writable folders">
      <h2>Writable folders</h2>
      <p className="muted small">
        An agent&apos;s shells and graph stages write their working folder, temp folders and tool caches (<code>~/.cache</code>, <code>~/.npm</code>, …);
        the rest of your files they only read. Let an agent write another folder here (or <code>ce participant folders NAME --add PATH</code>): its
        shells and stages started from then on get it.
      </p>
      {agents.length === 0 ? (
        <p className="muted">No agents yet.</p>
      ) : (
        <ul className="writable-folders" data-testid="writable-folders">
          {agents.map((p) => (
            <AgentFolders key={p.name} participant={p} onAdd={props.onAdd} onRemove={props.onRemove} />
          ))}
        </ul>
      )}
    </section>
  );
}

function AgentFolders(props: {
  participant: ParticipantView;
  onAdd(name: string, folder: string): Promise<string | null>;
  onRemove(name: string, folder: string): Promise<string | null>;
}): React.JSX.Element {
  const { name, writableFolders } = props.participant;
  const [folder, setFolder] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const id = `folder-${name}`;
  async function add(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    if (folder.trim() === '') return setProblem('Give the full path of a folder, such as /home/you/projects/site.');
    const refused = await props.onAdd(name, folder.trim());
    setProblem(refused);
    if (!refused) setFolder('');
  }
  return (
    <li data-agent-folders={name}>
      <div className="person-name">
        <span className="truncate" title={name}>
          {name}
        </span>
      </div>
      <ul className="folder-list">
        <li className="muted small">working folder, temp folders, tool caches</li>
        {writableFolders.map((f) => (
          <li key={f} data-folder={f}>
            <code className="truncate" title={f}>
              {f}
            </code>
            <button type="button" className="small" aria-label={`Stop ${name} writing ${f}`} onClick={() => void props.onRemove(name, f).then(setProblem)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form className="folder-add" onSubmit={(e) => void add(e)}>
        <label htmlFor={id} className="visually-hidden">
          A folder {name} may write
        </label>
        <input id={id} type="text" value={folder} placeholder="/home/you/projects/site" spellCheck={false} onChange={(e) => setFolder(e.target.value)} />
        <button type="submit" className="small">
          Let it write
        </button>
      </form>
      {problem && (
        <p className="form-problem folder-problem" role="alert">
          {problem}
        </p>
      )}
    </li>
  );
}
