import { useState } from 'react';
import type { AgentClientId } from '../../../../src-main/common/agent-clients';
import { useRoom } from '../../room-context';
import { AgentFormEnd, commandWords, NO_COMMAND, useAgentClients } from './agent-form';
import './new-task.css';

/**
 * Start an agent on a task (agent_start with task, what `ce agent start CLIENT --task` calls): the room hands
 * the task to a participant made for the run, makes its worktree in the repository (from the base asked for),
 * and starts the client there with the task as its first prompt. Its terminal opens selected.
 */
export function NewTask(props: { onClose(): void; onStarted(shellId: string): void }): React.JSX.Element {
  const { client } = useRoom();
  const [task, setTask] = useState('');
  const [repo, setRepo] = useState('');
  const [base, setBase] = useState('');
  const [command, setCommand] = useState('');
  const [write, setWrite] = useState(true);
  const [maxCost, setMaxCost] = useState('');
  const [maxHours, setMaxHours] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);

  const { clients, picked, setPicked } = useAgentClients(client, setProblem);

  async function start(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    if (!picked) return;
    if (!task.trim()) return setProblem('say what the task is: it is the agent’s first prompt and the handoff’s summary');
    if (!repo.trim()) return setProblem('name the repository the task is done in (its folder): the agent gets a worktree of its own there');
    const words = commandWords(picked, command);
    if (!words) return setProblem(NO_COMMAND);
    const cost = maxCost.trim() ? Number(maxCost) : undefined;
    const hours = maxHours.trim() ? Number(maxHours) : undefined;
    if (cost !== undefined && !(cost > 0)) return setProblem('the cost ceiling is an amount in US dollars above 0 (or leave it empty)');
    if (hours !== undefined && !(hours > 0)) return setProblem('the time limit is a number of hours above 0 (or leave it empty)');
    const envelope = { ...(cost !== undefined ? { maxCostUsd: cost } : {}), ...(hours !== undefined ? { maxWallMs: Math.round(hours * 3_600_000) } : {}) };
    setStarting(true);
    setProblem(null);
    try {
      const { agent } = await client.call('agent_start', {
        client: picked,
        ...(picked === 'command' ? { command: words } : {}),
        task: task.trim(),
        cwd: repo.trim(),
        repo: repo.trim(),
        ...(base.trim() ? { base: base.trim() } : {}),
        capabilities: write ? ['read', 'write'] : ['read'],
        ...(Object.keys(envelope).length > 0 ? { envelope } : {}),
      });
      props.onStarted(agent.shellId);
      props.onClose();
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setStarting(false);
    }
  }

  const ready = clients?.filter((c) => c.path !== null) ?? [];
  return (
    <div className="new-task" role="dialog" aria-label="New task" onKeyDown={(e) => e.key === 'Escape' && props.onClose()}>
      <form onSubmit={(e) => void start(e)}>
        <h3>Start an agent on a task</h3>
        <p className="muted small">It works in a git worktree of its own, on a branch of its own; you review its commits and merge them.</p>
        <div className="field">
          <label htmlFor="task-text">Task</label>
          <textarea id="task-text" rows={4} value={task} maxLength={2000} placeholder="e.g. Make the login test pass" onChange={(e) => setTask(e.target.value)} autoFocus />
        </div>
        <div className="field-row">
          <div className="field">
            <label htmlFor="task-repo">Repository</label>
            <input id="task-repo" type="text" value={repo} placeholder="its folder, e.g. /home/me/src/app" onChange={(e) => setRepo(e.target.value)} />
          </div>
          <div className="field field-base">
            <label htmlFor="task-base">Base</label>
            <input id="task-base" type="text" value={base} placeholder="current branch" onChange={(e) => setBase(e.target.value)} />
          </div>
        </div>
        <div className="field">
          <label htmlFor="task-client">Client</label>
          <select id="task-client" value={picked ?? ''} onChange={(e) => setPicked(e.target.value as AgentClientId)} disabled={clients === null}>
            {clients === null && <option value="">Looking for agent CLIs…</option>}
            {ready.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
                {c.version ? ` (${c.version})` : ''}
              </option>
            ))}
            {clients !== null && <option value="command">Another command…</option>}
          </select>
          {clients !== null && ready.length === 0 && <span className="muted small">No agent CLI was found on this machine: install one (e.g. {clients[0]?.install ?? 'npm install -g @anthropic-ai/claude-code'}), then start the room again.</span>}
        </div>
        {picked === 'command' && (
          <div className="field">
            <label htmlFor="task-command">Command</label>
            <input id="task-command" type="text" value={command} placeholder="e.g. ./my-agent (the task is in COMMONROOM_TASK)" onChange={(e) => setCommand(e.target.value)} />
          </div>
        )}
        <div className="field-row field-row-even">
          <div className="field">
            <label htmlFor="task-max-cost">Cost ceiling, US$</label>
            <input id="task-max-cost" type="number" step="any" inputMode="decimal" value={maxCost} placeholder="none" onChange={(e) => (setMaxCost(e.target.value), setProblem(null))} />
          </div>
          <div className="field">
            <label htmlFor="task-max-hours">Time limit, hours</label>
            <input id="task-max-hours" type="number" step="any" inputMode="decimal" value={maxHours} placeholder="none" onChange={(e) => (setMaxHours(e.target.value), setProblem(null))} />
          </div>
        </div>
        <p className="muted small task-envelope-note">At either limit the agent is stopped at a safe point and your inbox says so (its client must report its spend: Claude Code, Codex and Gemini CLI do).</p>
        <AgentFormEnd kind="task" write={write} setWrite={setWrite} problem={problem} ready={picked !== null} starting={starting} startLabel="Start on the task" onClose={props.onClose} />
      </form>
    </div>
  );
}
