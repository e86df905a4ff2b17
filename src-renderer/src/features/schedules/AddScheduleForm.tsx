import { useEffect, useMemo, useState } from 'react';
import type { MethodInput } from '../../../../src-main/common/contract';
import type { AgentClientView } from '../../../../src-main/common/methods/agents';
import { useRoom } from '../../room-context';
import { previewCron } from './schedule-text';

type Kind = 'command' | 'graph' | 'agent';

const GRAPH_EXAMPLE = '{"stages": [{"id": "build", "command": "make"}, {"id": "test", "command": "make test", "dependsOn": ["build"]}]}';

/** Every IANA zone this browser knows (for the zone field's suggestions). */
function knownZones(): string[] {
  try {
    return (Intl as unknown as { supportedValuesOf(key: string): string[] }).supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}

/**
 * Adding a schedule: a name, a cron pattern read in a stated zone (its next due times shown as it is typed, or
 * what to fix), what a due time missed while the room was down does, and what it runs — one command, a graph
 * as `ce run` takes it, or an agent task. Each refusal says what to fix; the room's own are shown as it says them.
 */
export function AddScheduleForm(props: { machineTimeZone: string; onAdded(): void }): React.JSX.Element {
  const { client } = useRoom();
  const [name, setName] = useState('');
  const [cron, setCron] = useState('0 3 * * *');
  const [timeZone, setTimeZone] = useState(props.machineTimeZone);
  const [catchUp, setCatchUp] = useState<'once' | 'skip'>('once');
  const [kind, setKind] = useState<Kind>('command');
  const [command, setCommand] = useState('');
  const [cwd, setCwd] = useState('');
  const [graph, setGraph] = useState('');
  const [agentClient, setAgentClient] = useState('claude-code');
  const [task, setTask] = useState('');
  const [clients, setClients] = useState<AgentClientView[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const zones = useMemo(knownZones, []);
  const preview = previewCron(cron, timeZone.trim() || props.machineTimeZone);
  const cronProblem = 'problem' in preview && preview.field === 'cron' ? preview.problem : null;
  const zoneProblem = 'problem' in preview && preview.field === 'zone' ? preview.problem : null;
  // a refusal is about what was sent: a change of what it runs starts afresh
  const pick = (k: Kind) => {
    setKind(k);
    setProblem(null);
  };

  useEffect(() => setTimeZone((z) => z || props.machineTimeZone), [props.machineTimeZone]);
  useEffect(() => {
    if (kind !== 'agent' || clients.length > 0) return;
    client.call('agent_clients', {}).then((out) => setClients(out.clients), () => setClients([]));
  }, [client, kind, clients.length]);

  /** The input to send, or what the person must fix first. */
  function inputOf(): MethodInput<'schedule_add'> | string {
    if (!name.trim()) return 'Give the schedule a name (it is how the list and Activity name it).';
    if ('problem' in preview) return preview.problem;
    const common = { name: name.trim(), cron: cron.trim(), timeZone: timeZone.trim() || props.machineTimeZone, catchUp };
    if (kind === 'command') {
      if (!command.trim()) return 'Give the command to run on each due time (e.g. make nightly).';
      return { ...common, graph: { name: name.trim(), stages: [{ id: 'run', command: command.trim(), ...(cwd.trim() ? { cwd: cwd.trim() } : {}) }] } };
    }
    if (kind === 'graph') {
      let spec: unknown;
      try {
        spec = JSON.parse(graph);
      } catch (error) {
        return `The graph is not JSON (${(error as Error).message}): give it as "ce run" takes it, e.g. ${GRAPH_EXAMPLE}`;
      }
      return { ...common, graph: spec as MethodInput<'tasks_run'> };
    }
    if (!task.trim()) return 'Say what the agent is asked to do on each run (its task).';
    if (!cwd.trim()) return 'Give the folder the agent works in (a git repository gives each run a worktree of its own).';
    return { ...common, agent: { client: agentClient as 'claude-code', task: task.trim(), cwd: cwd.trim() } };
  }

  async function submit(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    const input = inputOf();
    if (typeof input === 'string') return setProblem(input);
    setProblem(null);
    setBusy(true);
    try {
      await client.call('schedule_add', input);
      setName('');
      setCommand('');
      setGraph('');
      setTask('');
      props.onAdded();
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="schedule-form" onSubmit={(e) => void submit(e)} aria-label="Add a schedule" noValidate>
      <div className="field">
        <label htmlFor="schedule-name">Name</label>
        <input id="schedule-name" type="text" value={name} maxLength={120} placeholder="e.g. nightly build" onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="schedule-cron">When (cron)</label>
        <input id="schedule-cron" type="text" value={cron} spellCheck={false} aria-invalid={cronProblem !== null} aria-describedby="schedule-cron-help" onChange={(e) => setCron(e.target.value)} />
        <span id="schedule-cron-help" className={`small ${cronProblem ? 'field-problem' : 'muted'}`} data-testid="cron-preview">
          {cronProblem ?? ('next' in preview ? `Next: ${preview.next.join(' · ')}` : 'Next: —')}
        </span>
      </div>
      <div className="field">
        <label htmlFor="schedule-zone">Time zone</label>
        <input id="schedule-zone" type="text" list="schedule-zones" value={timeZone} spellCheck={false} aria-invalid={zoneProblem !== null} aria-describedby="schedule-zone-help" onChange={(e) => setTimeZone(e.target.value)} />
        <datalist id="schedule-zones">
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
        <span id="schedule-zone-help" className={`small ${zoneProblem ? 'field-problem' : 'muted'}`} data-testid="zone-help">
          {zoneProblem ?? `This machine's: ${props.machineTimeZone}`}
        </span>
      </div>
      <div className="field">
        <label htmlFor="schedule-catch-up">If the room was not running</label>
        <select id="schedule-catch-up" value={catchUp} onChange={(e) => setCatchUp(e.target.value as 'once' | 'skip')}>
          <option value="once">Run it once when the room starts</option>
          <option value="skip">Skip it, and say so</option>
        </select>
      </div>
      <fieldset className="schedule-kind field-wide">
        <legend>It runs</legend>
        {(
          [
            ['command', 'A command'],
            ['graph', 'A graph (JSON)'],
            ['agent', 'An agent task'],
          ] as const
        ).map(([k, label]) => (
          <label key={k}>
            <input type="radio" name="schedule-kind" value={k} checked={kind === k} onChange={() => pick(k)} /> {label}
          </label>
        ))}
      </fieldset>
      {kind === 'command' && (
        <div className="field field-wide">
          <label htmlFor="schedule-command">Command</label>
          <input id="schedule-command" type="text" value={command} spellCheck={false} placeholder="e.g. make nightly" onChange={(e) => setCommand(e.target.value)} />
        </div>
      )}
      {kind === 'graph' && (
        <div className="field field-wide">
          <label htmlFor="schedule-graph">Graph, as ce run takes it</label>
          <textarea id="schedule-graph" rows={4} value={graph} spellCheck={false} placeholder={GRAPH_EXAMPLE} onChange={(e) => setGraph(e.target.value)} />
        </div>
      )}
      {kind === 'agent' && (
        <>
          <div className="field">
            <label htmlFor="schedule-client">Agent</label>
            <select id="schedule-client" value={agentClient} onChange={(e) => setAgentClient(e.target.value)}>
              {(clients.length > 0 ? clients : [{ id: 'claude-code', label: 'Claude Code', path: null }]).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.label}
                  {c.path ? '' : ' (not installed here)'}
                </option>
              ))}
            </select>
          </div>
          <div className="field field-wide">
            <label htmlFor="schedule-task">Task</label>
            <textarea id="schedule-task" rows={2} value={task} placeholder="e.g. triage the issues opened since yesterday" onChange={(e) => setTask(e.target.value)} />
          </div>
        </>
      )}
      {kind !== 'graph' && (
        <div className="field field-wide">
          <label htmlFor="schedule-cwd">Folder{kind === 'command' ? ' (optional)' : ''}</label>
          <input id="schedule-cwd" type="text" value={cwd} spellCheck={false} placeholder="e.g. /home/me/src/app" onChange={(e) => setCwd(e.target.value)} />
        </div>
      )}
      <div className="schedule-form-end field-wide">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add schedule'}
        </button>
        {problem && (
          <p className="form-problem" role="alert" data-testid="schedule-problem">
            {problem}
          </p>
        )}
      </div>
    </form>
  );
}
