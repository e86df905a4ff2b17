import type { ParticipantView } from '../../../../src-main/common/dto';
import type { ParticipantPresence } from '../../../../src-main/common/methods/participants';
import type { ShellView } from '../../../../src-main/common/methods/shells';
import { statusBadge, statusText } from '../../shared/shell-status-text';
import { PresenceCell } from './PresenceCell';

/** The live terminals of one participant: the room started its client in one, or it opened them itself. */
function TerminalsCell(props: { shells: ShellView[]; onOpen(shellId: string): void }): React.JSX.Element {
  if (props.shells.length === 0) return <td className="muted">none</td>;
  return (
    <td>
      <ul className="agent-terminals">
        {props.shells.map((shell) => (
          <li key={shell.id}>
            <button type="button" className="link-button" data-testid="agent-terminal" data-shell-id={shell.id} title={`Open ${shell.name} (${shell.id}) on the Terminals screen`} onClick={() => props.onOpen(shell.id)}>
              <span className="truncate">{shell.agent?.label ?? shell.name}</span>
            </button>
            <span className={`badge ${statusBadge(shell)}`} title={shell.status.reason ?? undefined}>
              {statusText(shell)}
            </span>
          </li>
        ))}
      </ul>
    </td>
  );
}

/** The room's participants: who, what they may do, whether they are connected now and their last call; revoke. */
export function ParticipantsTable(props: {
  participants: ParticipantView[];
  presence: Record<string, ParticipantPresence>;
  /** Live shells by the participant they belong to (the agent started in it, or its owner). */
  terminals: Record<string, ShellView[]>;
  onOpenTerminal(shellId: string): void;
  onRevoke(name: string): void;
  onRotate(name: string): void;
  onCloseSession(name: string, sessionId: string): void;
}): React.JSX.Element {
  return (
    <table className="people participants">
      <thead>
        <tr>
          <th>Name</th>
          <th>Capabilities</th>
          <th>Connection</th>
          <th>Last call</th>
          <th>Terminals</th>
          <th>Added</th>
          <th>
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.participants.map((p) => (
          <tr key={p.name} className={p.revokedAt ? 'revoked' : ''} data-participant={p.name}>
            <td>
              <div className="person-name">
                <span className="truncate" title={p.name}>
                  {p.name}
                </span>
                {p.role === 'operator' && <span className="role-tag">you</span>}
              </div>
            </td>
            <td>
              {p.capabilities.map((c) => (
                <span key={c} className="cap">
                  {c}
                </span>
              ))}
            </td>
            <PresenceCell
              presence={props.presence[p.name]}
              revoked={p.revokedAt !== null}
              operator={p.role === 'operator'}
              onCloseSession={(id) => props.onCloseSession(p.name, id)}
            />
            {p.role === 'operator' ? <td /> : <TerminalsCell shells={props.terminals[p.name] ?? []} onOpen={props.onOpenTerminal} />}
            <td title={p.createdAt} className="nowrap">
              {new Date(p.createdAt).toLocaleDateString()}
            </td>
            <td className="nowrap">
              {p.revokedAt ? (
                <span className="muted">revoked</span>
              ) : p.role === 'agent' ? (
                <span className="row-actions">
                  <button type="button" className="small" onClick={() => props.onRotate(p.name)}>
                    New token
                  </button>
                  <button type="button" className="danger small" onClick={() => props.onRevoke(p.name)}>
                    Revoke
                  </button>
                </span>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
