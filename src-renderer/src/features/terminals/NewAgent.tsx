import { useEffect, useState } from 'react';
import { useRoom } from '../../room-context';
import { Dialog } from '../../shared/Dialog';
import { AgentFormEnd, commandWords, NO_COMMAND, useAgentClients } from './agent-form';

/** The folders agents were last started in from this browser, newest first (kept in its localStorage). */
const RECENT_KEY = 'commonroom.recentAgentFolders';
function recentFolders(): string[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string').slice(0, 8) : [];
  } catch {
    return [];
  }
}
function rememberFolder(folder: string): void {
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify([folder, ...recentFolders().filter((f) => f !== folder)].slice(0, 8)));
  } catch {
    // storage full or off: the list is a convenience
  }
}

/**
 * Start an agent CLI in a terminal of the room, already connected (agent_start), in a modal dialog (a backdrop,
 * focus inside, Escape closes it and focus returns to + New agent): pick the client (those found on the room's
 * PATH, with their version; the others say how to install them), the folder it works in (offered: the folders
 * agents were started in lately, here and in the room), a name, and what it may do. Its terminal opens selected.
 */
export function NewAgent(props: { onClose(): void; onStarted(shellId: string): void }): React.JSX.Element {
  const { client } = useRoom();
  const [command, setCommand] = useState('');
  const [cwd, setCwd] = useState('');
  const [name, setName] = useState('');
  const [folders, setFolders] = useState<string[]>(recentFolders);
  const [write, setWrite] = useState(true);
  const [problem, setProblem] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);

  const { clients, picked, setPicked } = useAgentClients(client, setProblem);

  useEffect(() => {
    let live = true;
    // the folders the room's agents work in, now and earlier, after this browser's own recent ones
    client.call('agent_list', {}).then(
      ({ agents, earlier }) => live && setFolders((mine) => [...new Set([...mine, ...agents.map((a) => a.cwd), ...earlier.map((a) => a.cwd)])].slice(0, 12)),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client]);

  async function start(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    if (!picked) return;
    const words = commandWords(picked, command);
    if (!words) {
      setProblem(NO_COMMAND);
      return;
    }
    setStarting(true);
    setProblem(null);
    const capabilities: ('read' | 'write')[] = write ? ['read', 'write'] : ['read'];
    const named = name.trim();
    let added = false;
    try {
      // a name: that agent (reused when it is one already), else a new participant of that name
      if (named) {
        const { participants } = await client.call('participant_list', {});
        if (!participants.some((p) => p.name === named && p.role === 'agent' && p.revokedAt === null)) {
          await client.call('participant_add', { name: named, capabilities });
          added = true;
        }
      }
      const { agent } = await client.call('agent_start', {
        client: picked,
        ...(picked === 'command' ? { command: words } : {}),
        ...(cwd.trim() ? { cwd: cwd.trim() } : {}),
        ...(named ? { participant: named } : { capabilities }),
      });
      rememberFolder(agent.cwd);
      props.onStarted(agent.shellId);
      props.onClose();
    } catch (error) {
      if (added) await client.call('participant_revoke', { name: named }).catch(() => undefined);
      setProblem((error as Error).message);
    } finally {
      setStarting(false);
    }
  }

  return (
    <Dialog title="New agent" className="new-agent" onClose={props.onClose}>
      <form onSubmit={(e) => void start(e)}>
        <p className="muted small">It runs in a terminal of the room, connected for this run only, as a participant of its own. Your own client settings are not changed.</p>
        <fieldset className="agent-clients" aria-label="Client">
          {clients === null && !problem && <p className="muted small">Looking for agent CLIs on this machine…</p>}
          {clients?.map((c) => (
            <label key={c.id} className={c.path ? '' : 'missing'} title={c.path ?? undefined}>
              <input type="radio" name="agent-client" value={c.id} checked={picked === c.id} disabled={!c.path} onChange={() => setPicked(c.id)} />
              <span className="agent-client-label">{c.label}</span>
              <span className="muted small">{c.path ? (c.version ?? c.path) : `not installed: ${c.install ?? ''}`}</span>
            </label>
          ))}
          {clients && (
            <label>
              <input type="radio" name="agent-client" value="command" checked={picked === 'command'} onChange={() => setPicked('command')} />
              <span className="agent-client-label">Another command</span>
              <span className="muted small">gets the endpoint and token in COMMONROOM_MCP_URL and COMMONROOM_TOKEN</span>
            </label>
          )}
        </fieldset>
        {picked === 'command' && (
          <div className="field">
            <label htmlFor="agent-command">Command</label>
            <input id="agent-command" type="text" value={command} placeholder="e.g. ./my-agent --verbose" onChange={(e) => setCommand(e.target.value)} />
          </div>
        )}
        <div className="field">
          <label htmlFor="agent-cwd">Folder</label>
          <input id="agent-cwd" type="text" value={cwd} list="agent-recent-folders" autoComplete="off" placeholder="the folder it works in, e.g. ~/src/app" onChange={(e) => setCwd(e.target.value)} />
          <datalist id="agent-recent-folders">
            {folders.map((f) => (
              <option key={f} value={f} />
            ))}
          </datalist>
          {folders.length > 0 && (
            <div className="recent-folders" aria-label="Recent folders">
              {folders.slice(0, 4).map((f) => (
                <button key={f} type="button" className="small chip" title={f} onClick={() => setCwd(f)}>
                  {f.split('/').filter(Boolean).slice(-2).join('/') || f}
                </button>
              ))}
            </div>
          )}
        </div>
        <div className="field">
          <label htmlFor="agent-name">Name (optional)</label>
          <input id="agent-name" type="text" value={name} maxLength={64} autoComplete="off" placeholder="e.g. reviewer; an agent of that name is reused" data-testid="agent-name" onChange={(e) => setName(e.target.value)} />
        </div>
        <AgentFormEnd kind="agent" write={write} setWrite={setWrite} problem={problem} ready={picked !== null} starting={starting} startLabel="Start" onClose={props.onClose} />
      </form>
    </Dialog>
  );
}
