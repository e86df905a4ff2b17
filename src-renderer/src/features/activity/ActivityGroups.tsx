import { useMemo, useState } from 'react';
import type { EventView } from '../../../../src-main/common/handoff-dto';
import { countsText, groupEvents, type EventGroup, type Grouping } from '../../../../src-main/common/event-groups';
import { whenText } from '../../app/time-range';
import { EventRow } from './EventRow';
import type { EventNames, EventTarget } from './event-text';

/** Groups shown at first, and added by each "Show more groups"; rows shown in an opened group at first. */
const GROUPS_PAGE = 50;
const ROWS_PAGE = 100;

const NONE: Record<Grouping, string> = { handoff: 'not about a handoff', graph: 'not about a graph', agent: 'by the room itself' };

/** A group's name as a person reads it: the handoff's summary, the graph's name, the agent's name. */
function groupLabel(key: string, by: Grouping, names: EventNames): string {
  if (key === '') return NONE[by];
  const name = names.names.get(key);
  if (by === 'handoff') return name ? `handoff “${name}”` : `handoff ${key}`;
  if (by === 'graph') return name ? `graph “${name}”` : `graph ${key}`;
  return key;
}

/**
 * Activity grouped by handoff, graph or agent: each group one line with its counts ("3 approved, 2 graphs
 * failed"), how many events and its newest; opened, its events as rows. Events come newest first, so the group
 * with the newest event leads.
 */
export function ActivityGroups(props: { events: EventView[]; by: Grouping; names: EventNames; onOpen(target: EventTarget): void }): React.JSX.Element {
  const groups = useMemo(() => groupEvents(props.events, props.by), [props.events, props.by]);
  const [shown, setShown] = useState(GROUPS_PAGE);
  if (groups.length === 0) return <p className="muted pad">No events match.</p>;
  return (
    <>
      <ol className="ev-groups" aria-label={`Events by ${props.by}`}>
        {groups.slice(0, shown).map((g) => (
          <Group key={g.key || '-'} group={g} by={props.by} names={props.names} onOpen={props.onOpen} />
        ))}
      </ol>
      {groups.length > shown && (
        <footer className="activity-foot">
          <button type="button" onClick={() => setShown((n) => n + GROUPS_PAGE)}>
            Show more groups ({groups.length - shown} more)
          </button>
        </footer>
      )}
    </>
  );
}

/** One group: its line, and its rows once opened (a closed group renders none of them). */
function Group(props: { group: EventGroup; by: Grouping; names: EventNames; onOpen(target: EventTarget): void }): React.JSX.Element {
  const g = props.group;
  const [open, setOpen] = useState(false);
  const label = groupLabel(g.key, props.by, props.names);
  const counts = countsText(g.counts);
  const newest = g.events[0];
  const bad = g.counts.some((c) => c.tally.bad);
  return (
    <li className="ev-group" data-group-key={g.key}>
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>
          <span className={`ev-group-name truncate ${g.key === '' ? 'muted' : ''}`} title={label}>
            {label}
          </span>
          <span className={`ev-group-counts ${bad ? 'bad' : ''}`}>{counts}</span>
          <span className="muted small ev-group-size">
            {g.events.length} event{g.events.length === 1 ? '' : 's'}
            {newest ? ` · ${whenText(newest.at)}` : ''}
          </span>
        </summary>
        {open && <GroupRows events={g.events} names={props.names} onOpen={props.onOpen} />}
      </details>
    </li>
  );
}

function GroupRows(props: { events: EventView[]; names: EventNames; onOpen(target: EventTarget): void }): React.JSX.Element {
  const [shown, setShown] = useState(ROWS_PAGE);
  return (
    <>
      <ol className="ev-rows">
        {props.events.slice(0, shown).map((e) => (
          <EventRow key={e.id} event={e} names={props.names} onOpen={props.onOpen} />
        ))}
      </ol>
      {props.events.length > shown && (
        <button type="button" className="link ev-group-more" onClick={() => setShown((n) => n + ROWS_PAGE)}>
          Show {Math.min(ROWS_PAGE, props.events.length - shown)} more of this group
        </button>
      )}
    </>
  );
}
