import { useEffect, useState } from 'react';
import type { ParticipantPresence } from '../../../../src-main/common/methods/participants';
import { presenceText } from './presence-text';

/**
 * Two cells: connected now (listen streams, MCP sessions used lately), idle or gone and since when, and the last
 * call since the runner started. The operator works through this window and `ce`, which are not MCP
 * connections: it shows a dash. The "… ago" words are re-read every 30 seconds.
 */
export function PresenceCell(props: {
  presence: ParticipantPresence | undefined;
  revoked: boolean;
  operator: boolean;
  onCloseSession?: (sessionId: string) => void;
}): React.JSX.Element {
  const p = props.presence;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  const where = presenceText(p, props.revoked, now);
  const connected = where.connected;
  const connection = props.operator ? '—' : where.text;
  return (
    <>
      <td data-testid="presence" data-connected={connected ? 'yes' : 'no'} className="nowrap" title={props.operator ? undefined : where.title}>
        {!props.operator && <span className={`presence-dot ${connected ? 'on' : ''}`} aria-hidden="true" />}
        <span data-testid="presence-text">{connection}</span>
        {!props.operator && (p?.sessions.length ?? 0) > 0 && (
          <ul className="sessions" aria-label="Open MCP sessions">
            {p?.sessions.map((s) => (
              <li key={s.id} data-session-id={s.id} title={`opened ${s.openedAt}, last used ${s.lastUsedAt}`}>
                <span className="truncate small">{s.client ?? 'unnamed client'}</span>
                <span className="muted small"> · {new Date(s.lastUsedAt).toLocaleTimeString()}</span>
                {props.onCloseSession && (
                  <button type="button" className="link small" onClick={() => props.onCloseSession?.(s.id)} aria-label={`Close the session of ${s.client ?? 'an unnamed client'}`}>
                    close
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td data-testid="last-call" className="last-call">
        {p?.lastCall && p.lastCallAt ? (
          <div className="last-call-text" title={`${p.lastCall} at ${p.lastCallAt}`}>
            <code className="truncate">{p.lastCall}</code>
            <span className="muted small">{new Date(p.lastCallAt).toLocaleTimeString()}</span>
          </div>
        ) : (
          <span className="muted">none yet</span>
        )}
      </td>
    </>
  );
}
