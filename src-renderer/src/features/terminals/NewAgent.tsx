import { useEffect, useState } from 'react';
import type { AgentClientId } from '../../../../src-main/common/agent-clients';
import type { AgentClientView } from '../../../../src-main/common/methods/agents';
import { useRoom } from '../../room-context';

/**
 * Start an agent CLI in a terminal of the room, already connected (agent_start): pick the client (those found
 * on the room's PATH, with their version; the others say how to install them), the folder it works in, and
 * what it may do. Its terminal opens selected, like a new shell.
 */
export function NewAgent(props: { onClose(): void; onStarted(shellId: string): void }): React.JSX.Element {
  const { client } = useRoom();
  const [clients, setClients] = useState<AgentClientView[] | null>(null);
  const [picked, setPicked] = useState<AgentClientId | null>(null);
  const [command, setCommand] = useState('');
  const [cwd, setCwd] = useState('');
  const [write, setWrite] = useState(true);
  const [problem, setProblem] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);

  useEffect(() => {
    let live = true;
    client.call('agent_clients', {}).then(
      ({ clients: found }) => {
        if (!live) return;
        setClients(found);
        setPicked((p) => p ?? found.find((c) => c.path !== null)?.id ?? 'command');
      },
      (error: Error) => live && setProblem(error.message),
    );
    return () => {
      live = false;
    };
  }, [client]);

  async function start(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    if (!picked) return;
    const words = command.trim().split(/\s+/).filter(Boolean);
    if (picked === 'command' && words.length === 0) {
      setProblem('name the command to run (its program and arguments)');
      return;
    }
    setStarting(true);
    setProblem(null);
    try {
      const { agent } = await client.call('agent_start', {
        client: picked,
        ...(picked === 'command' ? { command: words } : {}),
        ...(cwd.trim() ? { cwd: cwd.trim() } : {}),
        capabilities: write ? ['read', 'write'] : ['read'],
      });
      props.onStarted(agent.shellId);
      props.onClose();
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setStarting(false);
    }
  }

  return (
    <div className="new-agent" role="dialog" aria-label="New agent" onKeyDown={(e) => e.key === 'Escape' && props.onClose()}>
      <form onSubmit={(e) => void start(e)}>
        <h3>Start an agent</h3>
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
          <input id="agent-cwd" type="text" value={cwd} placeholder="the folder it works in, e.g. ~/src/app" onChange={(e) => setCwd(e.target.value)} />
        </div>
        <label className="agent-write">
          <input type="checkbox" checked={write} onChange={(e) => setWrite(e.target.checked)} /> it may run shells and graphs, and hand work over (write)
        </label>
        {problem && (
          <p className="form-problem" role="alert" data-testid="new-agent-problem">
            {problem}
          </p>
        )}
        <div className="new-agent-actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!picked || starting} data-testid="start-agent">
            {starting ? 'Starting…' : 'Start'}
          </button>
        </div>
      </form>
    </div>
  );
}
