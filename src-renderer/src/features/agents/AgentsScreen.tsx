import { useState } from 'react';
import { CAPABILITIES, type Capability } from '../../../../src-main/common/capabilities';
import { useConnection } from '../../room-context';
import { useParticipants, participantsStoreOf } from '../../stores/feature-stores';
import { useRoom, useShells } from '../../room-context';
import type { ShellView } from '../../../../src-main/common/methods/shells';
import { TokenOnce } from './TokenOnce';
import { ParticipantsTable } from './ParticipantsTable';
import { UiSessionsCard } from './UiSessionsCard';
import { HostsCard } from './HostsCard';
import { SpendCard } from './SpendCard';
import { SandboxNote } from './SandboxNote';
import { WritableFoldersCard } from './WritableFoldersCard';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import './agents.css';
import '../../shared/panes.css';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The endpoint agents connect to, the room's participants (with their live terminals), adding one (token shown once) and revoking. */
export function AgentsScreen(props: { onOpenTerminal(shellId: string): void }): React.JSX.Element {
  const hello = useConnection((s) => s.hello);
  const participants = useParticipants((s) => s.participants);
  const presence = useParticipants((s) => s.presence);
  const loaded = useParticipants((s) => s.loaded);
  const error = useParticipants((s) => s.error);
  const store = participantsStoreOf(useRoom().client);
  const shells = useShells((s) => s.shells);
  const terminals: Record<string, ShellView[]> = {};
  for (const shell of shells) {
    if (!shell.alive) continue;
    const who = shell.agent?.participant ?? shell.owner;
    (terminals[who] ??= []).push(shell);
  }
  const [name, setName] = useState('');
  const [caps, setCaps] = useState<Capability[]>(['read', 'write']);
  const [problem, setProblem] = useState<string | null>(null);
  const [fresh, setFresh] = useState<{ name: string; token: string } | null>(null);
  /** What the person is asked to confirm (in the app's own dialog), and what confirming does. */
  const [asking, setAsking] = useState<{ title: string; message: string; confirm: string; run(): void; keep(): void } | null>(null);
  /** Asks; confirmed, runs `run` and gives what it gives; kept (Cancel, Escape), gives null and runs nothing. */
  function ask<T>(question: { title: string; message: string; confirm: string }, run: () => Promise<T>): Promise<T | null> {
    return new Promise((resolve) => {
      let confirmed = false;
      setAsking({
        ...question,
        run: () => {
          confirmed = true;
          void run().then(resolve, () => resolve(null));
        },
        keep: () => {
          if (!confirmed) resolve(null);
        },
      });
    });
  }

  async function add(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    const wanted = name.trim();
    if (!NAME.test(wanted)) return setProblem('A name is letters, digits, ".", "_" or "-", starting with a letter or digit.');
    if (caps.length === 0) return setProblem('Give it at least one capability (read to look, write to work, approve to decide).');
    setProblem(null);
    const token = await store.getState().add(wanted, caps);
    if (token) {
      setFresh({ name: wanted, token });
      setName('');
    }
  }

  function rotate(who: string): void {
    void ask({ title: `A new token for ${who}?`, message: `Its current token stops working at once: update the agent's config with the new one.`, confirm: 'Give a new token' }, async () => {
      const token = await store.getState().rotate(who);
      if (token) setFresh({ name: who, token });
    });
  }

  async function closeSession(who: string, sessionId: string): Promise<void> {
    await store.getState().closeSession(who, sessionId);
  }

  function revoke(who: string): void {
    void ask({ title: `Revoke ${who}?`, message: 'Its token stops working at once and its open streams end.', confirm: 'Revoke' }, () => store.getState().revoke(who));
  }

  const url = hello?.mcpUrl ?? '';
  return (
    <div className="agents">
      <section className="card" aria-label="Endpoint">
        <h2>Endpoint</h2>
        <p className="muted small">Agents connect here over MCP (Streamable HTTP) with a bearer token. It listens on this machine only.</p>
        <div className="endpoint-url" data-testid="mcp-url">
          {url || 'connecting…'}
        </div>
      </section>
      {fresh && <TokenOnce name={fresh.name} token={fresh.token} url={url} onDone={() => setFresh(null)} />}
      <section className="card" aria-label="Add an agent">
        <h2>Add an agent</h2>
        <SandboxNote />
        <form className="add-form" onSubmit={(e) => void add(e)}>
          <div className="field">
            <label htmlFor="agent-name">Name</label>
            <input id="agent-name" type="text" value={name} maxLength={64} placeholder="e.g. claude-code" onChange={(e) => setName(e.target.value)} />
          </div>
          <fieldset className="caps" aria-label="Capabilities">
            {CAPABILITIES.map((c) => (
              <label key={c}>
                <input type="checkbox" checked={caps.includes(c)} onChange={(e) => setCaps((s) => (e.target.checked ? [...s, c] : s.filter((x) => x !== c)))} /> {c}
              </label>
            ))}
          </fieldset>
          <button type="submit" className="primary">
            Add and show token
          </button>
        </form>
        {(problem ?? error) && (
          <p className="form-problem" role="alert">
            {problem ?? error}
          </p>
        )}
      </section>
      <section className="card" aria-label="Participants">
        <h2>Participants</h2>
        {!loaded ? (
          <p className="muted">Reading participants…</p>
        ) : (
          <ParticipantsTable participants={participants} presence={presence} terminals={terminals} onOpenTerminal={props.onOpenTerminal} onRevoke={revoke} onRotate={rotate} onCloseSession={(who, id) => void closeSession(who, id)} />
        )}
      </section>
      <SpendCard agents={shells.filter((s) => s.agent)} />
      {loaded && (
        <WritableFoldersCard
          participants={participants}
          onAdd={(who, folder) => store.getState().changeFolders(who, { add: folder })}
          onRemove={(who, folder) =>
            ask({ title: `Stop ${who} writing this folder?`, message: `${folder}: its shells and stages started from then on only read it.`, confirm: 'Stop writing' }, () =>
              store.getState().changeFolders(who, { remove: folder }),
            )
          }
        />
      )}
      <HostsCard />
      <UiSessionsCard />
      {asking && <ConfirmDialog title={asking.title} message={asking.message} confirm={asking.confirm} onConfirm={asking.run} onClose={() => {
            asking.keep();
            setAsking(null);
          }} />}
    </div>
  );
}
