import { useEffect, useState } from 'react';
import type { EarlierAgentRun } from '../../../../src-main/common/methods/agents';
import { useRoom, useShells } from '../../room-context';

/**
 * Agents the room started whose terminal is gone (stopped, or ended with a runner restart): each can be
 * started again in the same folder as the same participant (it gets a new token), going on with its own
 * conversation where the client can. Read again whenever the
 * list of terminals changes.
 */
export function EarlierAgents(props: { onStarted(shellId: string): void }): React.JSX.Element | null {
  const { client } = useRoom();
  const count = useShells((s) => s.shells.length);
  const [earlier, setEarlier] = useState<EarlierAgentRun[]>([]);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    client.call('agent_list', {}).then(
      (r) => live && setEarlier(r.earlier),
      () => undefined, // an older room without agents: nothing to show
    );
    return () => {
      live = false;
    };
  }, [client, count]);

  if (earlier.length === 0) return null;
  async function again(run: EarlierAgentRun): Promise<void> {
    setProblem(null);
    try {
      // it goes on with its own conversation there, where the client can (Claude Code --continue, Codex resume --last, …)
      const { agent } = await client.call('agent_start', { client: run.client, cwd: run.cwd, participant: run.participant, resume: true });
      props.onStarted(agent.shellId);
    } catch (error) {
      setProblem((error as Error).message);
    }
  }
  return (
    <section className="earlier-agents" aria-label="Earlier agents">
      <h3>Earlier agents</h3>
      <ul>
        {earlier.map((run) => (
          <li key={run.participant} data-testid="earlier-agent">
            <span className="truncate" title={`${run.participant} in ${run.cwd}`}>
              {run.participant} <span className="muted small">{run.cwd}</span>
            </span>
            {run.client === 'command' ? (
              <code className="small" title="start it again from a terminal">
                {run.again}
              </code>
            ) : (
              <button type="button" className="small" onClick={() => void again(run)}>
                Start again
              </button>
            )}
          </li>
        ))}
      </ul>
      {problem && (
        <p className="form-problem" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
