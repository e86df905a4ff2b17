import { useMemo, useState } from 'react';
import type { EventView } from '../../../../src-main/common/handoff-dto';
import { EmptyState } from '../../app/EmptyState';
import { sinceOf, useNow, whenText, type TimeRangeId } from '../../app/time-range';
import { TimeRangeSelect } from '../../app/TimeRangeSelect';
import { useConnection, useShells } from '../../room-context';
import { useActivity } from '../../stores/feature-stores';
import { GROUPINGS, type Grouping } from '../../../../src-main/common/event-groups';
import { ActivityGroups } from './ActivityGroups';
import { EventRow } from './EventRow';
import { actorOf, matchesText, namesOf, type EventTarget } from './event-text';
import '../../shared/panes.css';
import './activity.css';

/** Events shown at first, and added by each "Show older". */
const PAGE = 200;

/**
 * The room's history, newest first, live, back to the oldest event the room keeps ("Show older" pages on):
 * filter by time, kind, who acted and text; subjects by name, times with their day; each opens its object.
 */
export function ActivityScreen(props: { onOpen(target: EventTarget): void }): React.JSX.Element {
  const events = useActivity((s) => s.events);
  const loaded = useActivity((s) => s.loaded);
  const dropped = useActivity((s) => s.dropped);
  const error = useActivity((s) => s.error);
  const shells = useShells((s) => s.shells);
  const everOpen = useConnection((s) => s.everOpen);
  const [kind, setKind] = useState('');
  const [actor, setActor] = useState('');
  const [range, setRange] = useState<TimeRangeId>('all');
  // the window rolls forward with the clock: "last hour" stays the last hour while the screen is open
  const since = sinceOf(range, useNow(range !== 'all'));
  const [text, setText] = useState('');
  const [groupBy, setGroupBy] = useState<Grouping | ''>('');
  const [shownCount, setShownCount] = useState(PAGE);

  const names = useMemo(() => namesOf(events, { shells: shells.map((s) => ({ id: s.id, name: s.name })) }), [events, shells]);
  const kinds = useMemo(() => [...new Set(events.map((e) => e.kind))].sort(), [events]);
  const actors = useMemo(() => [...new Set(events.map((e) => actorOf(e, names)))].sort(), [events, names]);
  const matching = useMemo(() => {
    const out: EventView[] = [];
    const needle = text.trim();
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i];
      if (!e) continue;
      if (since && e.at < since) break; // oldest first in the store: everything before is older still
      if (kind && e.kind !== kind && !e.kind.startsWith(`${kind}.`)) continue;
      if (actor && actorOf(e, names) !== actor) continue;
      if (!matchesText(e, names, needle)) continue;
      out.push(e);
    }
    return out;
  }, [events, names, kind, actor, since, text]);
  const shown = matching.slice(0, shownCount);

  if (!loaded) {
    return error ? <EmptyState title="Activity" text={error} tone="error" /> : <EmptyState title="Activity" text={everOpen ? 'Reading the history…' : 'Connecting to the room…'} />;
  }
  const families = [...new Set(kinds.map((k) => k.split('.')[0] ?? k))];
  const oldest = events[0];
  const filtered = kind !== '' || actor !== '' || since !== undefined || text.trim() !== '';
  return (
    <div className="activity">
      <header className="pane-head">
        <h2>Activity</h2>
        <span className="muted" data-testid="activity-count">
          {filtered ? `${matching.length} of ${events.length} events match` : `${events.length} events kept`}
          {oldest ? ` · since ${whenText(oldest.at)}` : ''}
        </span>
      </header>
      <div className="filters">
        <TimeRangeSelect
          value={range}
          onChange={(r) => {
            setRange(r);
            setShownCount(PAGE);
          }}
        />
        <label>
          Kind{' '}
          <select aria-label="Filter by kind" value={kind} onChange={(e) => (setKind(e.target.value), setShownCount(PAGE))}>
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
          <select aria-label="Filter by participant" value={actor} onChange={(e) => (setActor(e.target.value), setShownCount(PAGE))}>
            <option value="">anyone</option>
            {actors.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Group by{' '}
          <select aria-label="Group events" value={groupBy} onChange={(e) => setGroupBy(e.target.value as Grouping | '')}>
            <option value="">nothing (every event)</option>
            {GROUPINGS.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </label>
        <input type="search" aria-label="Search events" placeholder="Search events" maxLength={200} value={text} onChange={(e) => (setText(e.target.value), setShownCount(PAGE))} />
        {error && <span className="form-problem">{error}</span>}
      </div>
      {groupBy !== '' ? (
        <ActivityGroups events={matching} by={groupBy} names={names} onOpen={props.onOpen} />
      ) : shown.length === 0 ? (
        <p className="muted pad">No events match.</p>
      ) : (
        <ol aria-label="Events">
          {shown.map((e) => (
            <EventRow key={e.id} event={e} names={names} onOpen={props.onOpen} />
          ))}
        </ol>
      )}
      {groupBy === '' && (
        <footer className="activity-foot">
          {matching.length > shown.length ? (
            <button type="button" onClick={() => setShownCount((n) => n + PAGE)}>
              Show older ({matching.length - shown.length} more)
            </button>
          ) : (
            <span className="muted small" data-testid="activity-start">
              {dropped ? 'The start of what the room keeps: older events were dropped (the room keeps only its newest events).' : 'The start of the room’s history.'}
            </span>
          )}
        </footer>
      )}
    </div>
  );
}
