import { useEffect, useState } from 'react';
import type { AgentClientId } from '../../../../src-main/common/agent-clients';
import type { AgentClientView } from '../../../../src-main/common/methods/agents';
import type { EngineClient } from '../../engine-client';

/**
 * What New agent and New task share: the agent CLIs this machine has (agent_clients), the one picked (the first
 * installed, else "another command"), and the end of the form (write, the refusal, Cancel and Start).
 */
export function useAgentClients(client: EngineClient, onProblem: (message: string) => void): {
  clients: AgentClientView[] | null;
  picked: AgentClientId | null;
  setPicked(id: AgentClientId): void;
} {
  const [clients, setClients] = useState<AgentClientView[] | null>(null);
  const [picked, setPicked] = useState<AgentClientId | null>(null);
  useEffect(() => {
    let live = true;
    client.call('agent_clients', {}).then(
      ({ clients: found }) => {
        if (!live) return;
        setClients(found);
        setPicked((p) => p ?? found.find((c) => c.path !== null)?.id ?? 'command');
      },
      (error: Error) => live && onProblem(error.message),
    );
    return () => {
      live = false;
    };
  }, [client]);
  return { clients, picked, setPicked };
}

/** The words of an "another command" field, or null (with the refusal) when it names nothing. */
export function commandWords(picked: AgentClientId | null, command: string): string[] | null {
  const words = command.trim().split(/\s+/).filter(Boolean);
  return picked === 'command' && words.length === 0 ? null : words;
}
export const NO_COMMAND = 'name the command to run (its program and arguments)';

/** Write permission, the room's refusal, Cancel and Start: the end of both forms. */
export function AgentFormEnd(props: {
  /** "agent" or "task": the class and test-id names of its form. */
  kind: 'agent' | 'task';
  write: boolean;
  setWrite(write: boolean): void;
  problem: string | null;
  ready: boolean;
  starting: boolean;
  startLabel: string;
  onClose(): void;
}): React.JSX.Element {
  return (
    <>
      <label className={`${props.kind}-write`}>
        <input type="checkbox" checked={props.write} onChange={(e) => props.setWrite(e.target.checked)} /> it may run shells and graphs, and hand work over (write)
      </label>
      {props.problem && (
        <p className="form-problem" role="alert" data-testid={`new-${props.kind}-problem`}>
          {props.problem}
        </p>
      )}
      <div className={`new-${props.kind}-actions`}>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={!props.ready || props.starting} data-testid={`start-${props.kind}`}>
          {props.starting ? 'Starting…' : props.startLabel}
        </button>
      </div>
    </>
  );
}
