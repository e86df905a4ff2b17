import { useMemo, useState } from 'react';
import type { EventView } from '../../../../src-main/common/handoff-dto';
import type { Screen } from '../../app/Sidebar';
import { EmptyState } from '../../app/EmptyState';
import { useConnection } from '../../room-context';
import { useActivity } from '../../stores/feature-stores';
import '../inbox/inbox.css';

/** Where an event's subject lives in this window, by the family of its kind. */
export function screenOf(event: EventView): Screen | null {
  const family = event.kind.split('.')[0];
  switch (family) {
    case 'handoff':
      return 'inbox';
    case 'graph':
    case 'task':
      return 'graphs';
    case 'shell':
      return 'terminals';
    case 'participant':
      return 'agents';
    case 'agent':
      return 'terminals';
    default:
      return null;
  }
}

/** What opening an event selects: its subject, or for an agent's start and end (subject: its participant) its terminal. */
function openedId(event: EventView): string | null {
  if (event.kind.startsWith('agent.')) {
    const shellId = (event.data as { shellId?: unknown } | null)?.shellId;
    return typeof shellId === 'string' ? shellId : null;
  }
  return event.subject;
}

const SHOWN = 500;

/** A one-line gist of an event's data: its plain fields, shortened (the data is the engine's, shown as text). */
export function gist(data: unknown): string {
  if (!data || typeof data !== 'object') return data === null || data === undefined ? '' : String(data);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    // ids of records the row already names (or that a person never types) only add noise
    if (v === null || typeof v === 'object' || k.endsWith('Id')) continue;
    parts.push(`${k}: ${String(v).slice(0, 60)}`);
    if (parts.length === 4) break;
  }
  return parts.join(' · ');
}

/** The room's history, newest first, live; filter by kind family and by who acted. */
export function ActivityScreen(props: { onOpen(screen: Screen, subject: string | null): void }): React.JSX.Element {
  const events = useActivity((s) => s.events);
  const loaded = useActivity((s) => s.loaded);
  const dropped = useActivity((s) => s.dropped);
  const error = useActivity((s) => s.error);
  const everOpen = useConnection((s) => s.everOpen);
  const [kind, setKind] = useState('');
  const [actor, setActor] = useState('');

  const kinds = useMemo(() => [...new Set(events.map((e) => e.kind))].sort(), [events]);
  const actors = useMemo(() => [...new Set(events.map((e) => e.actor ?? 'room'))].sort(), [events]);
  const shown = useMemo(() => {
    const out: EventView[] = [];
    for (let i = events.length - 1; i >= 0 && out.length < SHOWN; i--) {
      const e = events[i];
      if (!e) continue;
      if (kind && e.kind !== kind && !e.kind.startsWith(`${kind}.`)) continue;
      if (actor && (e.actor ?? 'room') !== actor) continue;
      out.push(e);
    }
    return out;
  }, [events, kind, actor]);

  if (!loaded) {
    return error ? <EmptyState title="Activity" text={error} tone="error" /> : <EmptyState title="Activity" text={everOpen ? 'Reading the history…' : 'Connecting to the room…'} />;
  }
  const families = [...new Set(kinds.map((k) => k.split('.')[0] ?? k))];
  return (
    <div className="activity">
      <header className="pane-head">
        <h2>Activity</h2>
        <span className="muted">{events.length} events kept</span>
      </header>
      <div className="filters">
        <label>
          Kind{' '}
          <select aria-label="Filter by kind" value={kind} onChange={(e) => setKind(e.target.value)}>
            <option value="">all</option>
            {families.map((f) => (
              <option key={`f-${f}`} value={f}>
                {f}.*
              </option>
            ))}
            {kinds.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label>
          Participant{' '}
          <select aria-label="Filter by participant" value={actor} onChange={(e) => setActor(e.target.value)}>
            <option value="">anyone</option>
            {actors.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        {error && <span className="form-problem">{error}</span>}
      </div>
      {dropped && <p className="notice">Older events were dropped: the room keeps only its newest events.</p>}
      {shown.length === 0 ? (
        <p className="muted pad">No events match.</p>
      ) : (
        <ol aria-label="Events">
          {shown.map((e) => {
            const target = screenOf(e);
            return (
              <li key={e.id} data-event-kind={e.kind}>
                <time className="muted" dateTime={e.at} title={e.at}>
                  {new Date(e.at).toLocaleTimeString()}
                </time>
                <span className="ev-kind">{e.kind}</span>
                <span className="ev-actor truncate">{e.actor ?? 'room'}</span>
                {e.subject && target ? (
                  <button type="button" className="link ev-subject truncate" title={`Open in ${target}`} onClick={() => props.onOpen(target, openedId(e))}>
                    {e.subject}
                  </button>
                ) : (
                  <span className="ev-subject muted truncate">{e.subject ?? ''}</span>
                )}
                <span className="ev-data muted truncate">{gist(e.data)}</span>
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
