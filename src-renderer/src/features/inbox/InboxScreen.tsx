import { useEffect, useMemo, useRef, useState } from 'react';
import { EmptyState } from '../../app/EmptyState';
import { useConnection, useRoom } from '../../room-context';
import { inboxStoreOf, useInbox } from '../../stores/feature-stores';
import type { WaitingKind } from '../../stores/inbox-store';
import { askNotificationPermission, notificationPermission } from '../../stores/notify';
import type { DecisionHandle } from './DecisionPanel';
import { HandoffDetail } from './HandoffDetail';
import { OpenedHandoff } from './OpenedHandoff';
import { NewHandoff } from './NewHandoff';
import { DecisionToast, PendingDecisionContext, useDecisionQueue, type PendingDecisions } from './pending-decision';
import '../../shared/panes.css';

const KIND_LABEL: Record<WaitingKind, string> = { approve: 'to approve', input: 'needs input', addressed: 'for you', doing: 'yours to finish' };

/** Keys typed into a field are the person's text, not commands. */
function typing(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/** Everything waiting on the person, newest first, with the chosen item beside the list. j/k move, a/r decide. */
export function InboxScreen(): React.JSX.Element {
  const [newHandoff, setNewHandoff] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const { client } = useRoom();
  const store = inboxStoreOf(client);
  const items = useInbox((s) => s.items);
  const loaded = useInbox((s) => s.loaded);
  const error = useInbox((s) => s.error);
  const selectedId = useInbox((s) => s.selectedId);
  const openedId = useInbox((s) => s.openedId);
  const everOpen = useConnection((s) => s.everOpen);
  const decision = useRef<DecisionHandle>(null);
  const [permission, setPermission] = useState(notificationPermission());
  const queue = useDecisionQueue((note) => {
    void store.getState().refresh();
    if (note.phase === 'undone') store.getState().select(note.decision.handoffId);
  });
  // a decision moves on to the next item at once; its own item waits out the undo window, marked as such
  const decisions = useMemo<PendingDecisions>(
    () => ({
      ...queue,
      schedule(d) {
        queue.schedule(d);
        const { items: list, select } = store.getState();
        const at = list.findIndex((i) => i.handoff.id === d.handoffId);
        const rest = list.filter((i) => i.handoff.id !== d.handoffId);
        select((rest[Math.min(Math.max(at, 0), rest.length - 1)] ?? null)?.handoff.id ?? null);
      },
    }),
    [queue, store],
  );
  const pendingId = queue.pendingId;
  const pendingRef = useRef(pendingId);
  pendingRef.current = pendingId;
  const undoRef = useRef(queue.undo);
  undoRef.current = queue.undo;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      const { items: list, selectedId: current, select } = store.getState();
      // the item waiting out its undo window is skipped
      const open = list.filter((i) => i.handoff.id !== pendingRef.current);
      const at = open.findIndex((i) => i.handoff.id === current);
      if (e.key === 'j' || e.key === 'k') {
        const next = open[Math.min(open.length - 1, Math.max(0, at + (e.key === 'j' ? 1 : at < 0 ? 0 : -1)))];
        if (next) select(next.handoff.id);
      } else if (e.key === 'u') undoRef.current();
      else if (e.key === 'a') decision.current?.approve();
      else if (e.key === 'r') {
        e.preventDefault();
        decision.current?.reject();
      } else return;
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store]);

  if (!loaded) {
    return error ? <EmptyState title="Inbox" text={error} tone="error" /> : <EmptyState title="Inbox" text={everOpen ? 'Reading the inbox…' : 'Connecting to the room…'} />;
  }
  const selected = items.find((i) => i.handoff.id === selectedId && i.handoff.id !== pendingId) ?? null;
  return (
    <PendingDecisionContext.Provider value={decisions}>
      <div className="inbox">
        <section className="inbox-list" aria-label="Waiting on you">
          <header className="pane-head">
            <h2>Inbox</h2>
            <span className="muted">{items.length} waiting</span>
            {permission === 'default' && (
              <button type="button" className="link" onClick={() => void askNotificationPermission().then(setPermission)}>
                Notify me
              </button>
            )}
            <button type="button" className="small new-handoff-button" onClick={() => setNewHandoff(true)} data-testid="new-handoff">
              + New handoff
            </button>
          </header>
          {newHandoff && <NewHandoff onClose={() => setNewHandoff(false)} onCreated={setCreated} />}
          {created && (
            <p className="handoff-created" role="status" data-testid="handoff-created">
              {created}
            </p>
          )}
          {error && <p className="form-problem">{error}</p>}
          {items.length === 0 ? (
            <p className="muted pad">Nothing waits on you. Results to approve and questions from agents appear here.</p>
          ) : (
            <ul>
              {items.map((item) => (
                <li key={item.handoff.id}>
                  <button
                    type="button"
                    className={`inbox-item ${item.handoff.id === selectedId ? 'selected' : ''} ${item.handoff.id === pendingId ? 'pending' : ''}`}
                    data-handoff-id={item.handoff.id}
                    aria-current={item.handoff.id === selectedId ? 'true' : undefined}
                    onClick={() => store.getState().select(item.handoff.id)}
                  >
                    <span className={`kind kind-${item.kind}`}>{item.handoff.id === pendingId ? 'deciding… (u undoes)' : KIND_LABEL[item.kind]}</span>
                    <span className="truncate summary" title={item.handoff.summary}>
                      {item.handoff.summary}
                    </span>
                    <span className="muted small truncate" title={`${item.handoff.owner} → ${item.handoff.to ?? 'anyone'}`}>
                      {item.handoff.owner} → {item.handoff.to ?? 'anyone'} · {new Date(item.handoff.updatedAt).toLocaleTimeString()}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <p className="muted small pad keys">
            <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>a</kbd> approve · <kbd>r</kbd> reject · <kbd>u</kbd> undo
          </p>
        </section>
        <div className="inbox-detail">
          {pendingId !== null && selectedId === pendingId ? (
            <EmptyState title="Deciding…" text="Your decision on this one is sent in a moment: Undo (u) takes it back." />
          ) : selected ? (
            <HandoffDetail key={selected.handoff.id} ref={decision} handoff={selected.handoff} kind={selected.kind} onChanged={() => void store.getState().refresh()} />
          ) : openedId !== null && openedId === selectedId ? (
            <OpenedHandoff key={openedId} ref={decision} id={openedId} onChanged={() => void store.getState().refresh()} />
          ) : (
            <EmptyState title="All clear" text="Nothing is waiting on you right now." />
          )}
          <DecisionToast queue={queue} />
        </div>
      </div>
    </PendingDecisionContext.Provider>
  );
}
