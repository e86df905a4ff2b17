import type { ParticipantView } from '../../../../src-main/common/dto';
import type { ParticipantPresence } from '../../../../src-main/common/methods/participants';
import { PresenceCell } from './PresenceCell';

/** The room's participants: who, what they may do, whether they are connected now and their last call; revoke. */
export function ParticipantsTable(props: {
  participants: ParticipantView[];
  presence: Record<string, ParticipantPresence>;
  onRevoke(name: string): void;
  onRotate(name: string): void;
  onCloseSession(name: string, sessionId: string): void;
}): React.JSX.Element {
  return (
    <table className="people">
      <thead>
        <tr>
          <th>Name</th>
          <th>Capabilities</th>
          <th>Connection</th>
          <th>Last call</th>
          <th>Added</th>
          <th />
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
