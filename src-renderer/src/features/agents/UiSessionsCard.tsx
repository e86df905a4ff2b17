import { useCallback, useEffect, useState } from 'react';
import type { UiSessionView } from '../../../../src-main/common/methods/ui';
import { useRoom } from '../../room-context';

/**
 * The browser tabs signed in to this room as the operator (served by `commonroom serve` only): when each
 * signed in, when it was last used, its browser; a sign-out ends a tab's session at once.
 */
export function UiSessionsCard(): React.JSX.Element | null {
  const { client, desktop } = useRoom();
  const [sessions, setSessions] = useState<UiSessionView[] | null>(null);
  const [served, setServed] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const read = useCallback(async () => {
    try {
      const out = await client.call('ui_session_list', {});
      setSessions(out.sessions);
      setServed(out.served);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  }, [client]);
  useEffect(() => {
    void read();
  }, [read]);
  if (desktop || (sessions !== null && !served)) return null;
  async function signOut(id: string): Promise<void> {
    if (!window.confirm('Sign this browser tab out? It must open a new sign-in link ("ce ui-link") to come back.')) return;
    try {
      await client.call('ui_session_revoke', { sessionId: id });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    await read();
  }
  return (
    <section className="card" aria-label="Browser sign-ins">
      <h2>Browser sign-ins</h2>
      <p className="muted small">
        Tabs signed in to this room as you. Each sign-in link works once; get another with <code>ce ui-link</code>. They all end when the room
        process stops.
      </p>
      {sessions === null ? (
        <p className="muted">Reading sign-ins…</p>
      ) : (
        <table className="people ui-sessions" data-testid="ui-sessions">
          <thead>
            <tr>
              <th>Signed in</th>
              <th>Last used</th>
              <th>Open tabs</th>
              <th>Browser</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id} data-ui-session={s.id}>
                <td className="nowrap" title={s.createdAt}>
                  {new Date(s.createdAt).toLocaleString()}
                </td>
                <td className="nowrap" title={s.lastSeenAt}>
                  {new Date(s.lastSeenAt).toLocaleTimeString()}
                </td>
                <td>{s.sockets}</td>
                <td>
                  <span className="truncate" title={s.userAgent}>
                    {s.userAgent || 'unknown'}
                  </span>
                </td>
                <td className="nowrap">
                  <button type="button" className="danger small" onClick={() => void signOut(s.id)}>
                    Sign out
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {problem && (
        <p className="form-problem" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
