import type { ShellView } from '../../../../src-main/common/methods/shells';
import { useConnection, useRoom, useShells } from '../../room-context';
import { useState } from 'react';
import { statusBadge, statusText } from '../../shared/shell-status-text';
import { useNow } from '../../shared/use-now';
import { NewAgent } from './NewAgent';
import { NewTask } from './NewTask';
import { ReadyForReview } from './ReadyForReview';
import { EarlierAgents } from './EarlierAgents';
import { useParticipants } from '../../stores/feature-stores';
import { stageOf, stageShellName, useGraphName } from '../../shared/stage-shell';
import './remote-shell.css';

/** A shell's name as a person reads it: a tty stage's is its stage and graph, not the graph's id. */
export function ShellName(props: { shell: ShellView }): React.JSX.Element {
  const { client } = useRoom();
  const stage = stageOf(props.shell);
  const graphName = useGraphName(client, stage?.graphId ?? null);
  const name = stage ? stageShellName(stage, graphName) : props.shell.name;
  return <>{name}</>;
}

/** `newTask`: opened with the New task form showing (asked for on the room's first screen). */
export function ShellList(props: { newTask?: boolean }): React.JSX.Element {
  const { shells: store } = useRoom();
  const shells = useShells((s) => s.shells);
  const selectedId = useShells((s) => s.selectedId);
  const linkOpen = useConnection((s) => s.state === 'open');
  const [newAgent, setNewAgent] = useState(false);
  const [newTask, setNewTask] = useState(props.newTask ?? false);
  // shells whose owner's token was revoked: still shown (they may still run), and marked so
  // "stalled 12 min" counts on while one is stalled or limited
  const now = useNow(10_000, shells.some((s) => s.condition));
  const revoked = new Set(useParticipants((s) => s.participants).filter((p) => p.revokedAt !== null).map((p) => p.name));
  return (
    <aside className="shell-list" aria-label="Shells">
      <div className="shell-list-head">
        <h2>Terminals</h2>
        <button type="button" className="primary small" disabled={!linkOpen} onClick={() => void store.getState().openShell()} data-testid="new-shell">
          + New shell
        </button>
        <button type="button" className="small" disabled={!linkOpen} onClick={() => setNewAgent(true)} data-testid="new-agent">
          + New agent
        </button>
        <button type="button" className="small" disabled={!linkOpen} onClick={() => setNewTask(true)} data-testid="new-task">
          + New task
        </button>
      </div>
      {newTask && (
        <div className="new-task-anchor">
          <NewTask
            onClose={() => setNewTask(false)}
            onStarted={(id) => {
              void store.getState().refresh().then(() => store.getState().select(id));
            }}
          />
        </div>
      )}
      <ReadyForReview />
      {newAgent && (
        <NewAgent
          onClose={() => setNewAgent(false)}
          onStarted={(id) => {
            void store.getState().refresh().then(() => store.getState().select(id));
          }}
        />
      )}
      <ul>
        {shells.map((shell) => (
          <li key={shell.id}>
            <button
              type="button"
              className={`shell-item ${shell.id === selectedId ? 'selected' : ''}`}
              aria-current={shell.id === selectedId ? 'true' : undefined}
              data-shell-id={shell.id}
              onClick={() => store.getState().select(shell.id)}
            >
              <span className={`status-dot ${shell.alive ? (shell.status.state === 'waiting' ? 'waiting' : 'alive') : 'ended'}`} aria-hidden="true" />
              <span className="shell-item-text">
                <span className="shell-name-row">
                  <span className="shell-name truncate" title={shell.name}>
                    <ShellName shell={shell} />
                  </span>
                  <span className={`badge small ${shell.hostReachable === false ? 'badge-warn' : statusBadge(shell)}`} data-testid="shell-list-status" title={shell.status.reason ?? undefined}>
                    {shell.hostReachable === false ? 'unknown' : statusText(shell, now)}
                  </span>
                  {revoked.has(shell.owner) && (
                    <span className="badge small badge-muted" data-testid="owner-revoked" title={`${shell.owner}'s token was revoked: it can no longer reach this shell; close it if it should not run on`}>
                      revoked
                    </span>
                  )}
                </span>
                <span className="shell-meta truncate" title={metaOf(shell)}>
                  {shell.host !== undefined && <HostMark shell={shell} />}
                  {shell.agent ? `${shell.agent.label} · ${shell.owner}` : shell.owner}
                </span>
              </span>
            </button>
          </li>
        ))}
      </ul>
      <EarlierAgents onStarted={(id) => void store.getState().refresh().then(() => store.getState().select(id))} />
    </aside>
  );
}

/** Owner (and agent client) and its status in words (the header spells the exit out in full). */
function metaOf(shell: ShellView): string {
  const where = shell.host !== undefined ? `on ${shell.host}${shell.hostReachable === false ? ' (unreachable: unknown until it is back)' : ''} · ` : '';
  return `${where}${shell.agent ? `${shell.agent.label} · ` : ''}${shell.owner} · ${statusText(shell)}`;
}

/** The host a shell runs on (docs/hosts.md), marked when it cannot be reached: its shell is unknown, not ended. */
function HostMark({ shell }: { shell: ShellView }): React.JSX.Element {
  const away = shell.hostReachable === false;
  return (
    <span className={`badge small host-mark ${away ? 'badge-warn' : 'badge-host'}`} data-testid="shell-host">
      {away ? `${shell.host} · unreachable` : shell.host}
    </span>
  );
}
