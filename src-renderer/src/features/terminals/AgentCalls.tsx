import { useEffect, useState } from 'react';
import type { AuditEntry } from '../../../../src-main/common/methods/audit';
import { useRoom, useShells } from '../../room-context';

/**
 * What the agent in this terminal asked of the room, newest first: tool, what it was about, outcome, when
 * (from the audit log; read again when the room says who is connected changed, when the agent's own events
 * arrive, and when its terminal's status moves).
 */
export function AgentCalls(props: { participant: string; shellId: string }): React.JSX.Element {
  const { client } = useRoom();
  // its terminal's status moved (an agent at work calls between its own outputs): read again then too
  const since = useShells((s) => s.shells.find((x) => x.id === props.shellId)?.status.since);
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  useEffect(() => {
    let live = true;
    const read = () =>
      client.call('audit_list', { participant: props.participant, limit: 15 }).then(
        (r) => live && setEntries(r.entries),
        () => undefined,
      );
    void read();
    const offs = [client.onPresenceChanged(() => void read()), client.on((e) => e.actor === props.participant && void read())];
    return () => {
      live = false;
      for (const off of offs) off();
    };
  }, [client, props.participant, since]);
  return (
    <aside className="agent-calls" aria-label={`${props.participant}'s calls`} data-testid="agent-calls">
      <h4>Its calls</h4>
      {entries === null ? (
        <p className="muted small">Reading…</p>
      ) : entries.length === 0 ? (
        <p className="muted small">none yet</p>
      ) : (
        <ol>
          {entries.map((e) => (
            <li key={e.id} className={e.outcome === 'ok' ? '' : 'failed'} title={`${e.at} · ${e.durationMs} ms`}>
              <span className="call-method">{e.method}</span>
              {e.target && <span className="call-target truncate">{e.target}</span>}
              <span className={`call-outcome ${e.outcome === 'ok' ? 'ok' : 'bad'}`}>{e.outcome}</span>
            </li>
          ))}
        </ol>
      )}
    </aside>
  );
}
