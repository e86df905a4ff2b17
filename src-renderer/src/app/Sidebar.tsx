import { useEffect } from 'react';
import { useConnection, useShells } from '../room-context';
import { waitingCount } from '../shared/shell-status-text';
import { useInbox } from '../stores/feature-stores';

export type Screen = 'summary' | 'terminals' | 'graphs' | 'inbox' | 'history' | 'agents' | 'schedules' | 'activity';

const ITEMS: { id: Screen; label: string; icon: string }[] = [
  // while you were away: what waits, what ended, what is ready (features/summary/)
  { id: 'summary', label: 'Summary', icon: '◐' },
  { id: 'terminals', label: 'Terminals', icon: '›_' },
  { id: 'graphs', label: 'Graphs', icon: '◇' },
  { id: 'inbox', label: 'Inbox', icon: '✉' },
  { id: 'history', label: 'History', icon: '✓' },
  { id: 'agents', label: 'Agents', icon: '◎' },
  { id: 'schedules', label: 'Schedules', icon: '◷' },
  { id: 'activity', label: 'Activity', icon: '≡' },
];

export function Sidebar(props: { current: Screen; onSelect(screen: Screen): void }): React.JSX.Element {
  const hello = useConnection((s) => s.hello);
  const state = useConnection((s) => s.state);
  const waiting = useInbox((s) => s.items.length);
  const agentsWaiting = useShells((s) => waitingCount(s.shells));
  // the room's name stays in the window's title (and the tab's) when a narrow sidebar has no room for it
  const label = hello ? roomLabel(hello.room) : null;
  useEffect(() => {
    document.title = label ? `${label} — Commonroom` : 'Commonroom';
  }, [label]);
  return (
    <nav className="sidebar" aria-label="Screens">
      <div className="brand">
        <h1 className="brand-name">Commonroom</h1>
        <span className="room-name truncate" title={hello?.room ?? ''}>
          {hello ? roomLabel(hello.room) : '…'}
        </span>
      </div>
      <ul>
        {ITEMS.map((item) => (
          <li key={item.id}>
            <button
              type="button"
              className={`nav-item ${props.current === item.id ? 'active' : ''}`}
              aria-current={props.current === item.id ? 'page' : undefined}
              onClick={() => props.onSelect(item.id)}
            >
              <span className="nav-icon" aria-hidden="true">
                {item.icon}
              </span>
              {item.label}
              {item.id === 'terminals' && agentsWaiting > 0 && (
                <span className="badge badge-warn" data-testid="terminals-waiting-badge" aria-label={`${agentsWaiting} waiting for you`} title="terminals waiting for you">
                  {agentsWaiting}
                </span>
              )}
              {item.id === 'inbox' && waiting > 0 && (
                <span className="badge" data-testid="inbox-badge" aria-label={`${waiting} waiting`}>
                  {waiting}
                </span>
              )}
            </button>
          </li>
        ))}
      </ul>
      <div className="sidebar-foot">
        <span className={`link-dot link-${state}`} aria-hidden="true" />
        <span data-testid="link-state">{state === 'open' ? 'connected' : state}</span>
        {hello && (
          <span className="endpoint truncate" title={`Agents connect to ${hello.mcpUrl}`}>
            {hello.mcpUrl}
          </span>
        )}
      </div>
    </nav>
  );
}

/** The room as a person names it: its file's name without the folder (the full path is the tooltip). */
export function roomLabel(room: string): string {
  const name = room.split(/[\\/]/).pop() ?? room;
  return name.length > 0 ? name : room;
}
