import { useEffect, useState } from 'react';
import { notifyAgentCondition, notifyReadyForReview, notifyShellWaiting } from './stores/notify';
import { useReadyForReview } from './stores/ready-review';
import type { DesktopMessage } from '../../src-main/common/ipc';
import { ConnectionBanner } from './app/ConnectionBanner';
import { ErrorBoundary } from './app/ErrorBoundary';
import { RoomUnavailable } from './app/RoomUnavailable';
import { Sidebar, type Screen } from './app/Sidebar';
import { ActivityScreen } from './features/activity/ActivityScreen';
import { AgentsScreen } from './features/agents/AgentsScreen';
import { FirstRun } from './features/agents/FirstRun';
import { useFirstRun } from './features/agents/use-first-run';
import { GraphsScreen } from './features/graphs/GraphsScreen';
import { HistoryScreen } from './features/history/HistoryScreen';
import { InboxScreen } from './features/inbox/InboxScreen';
import { SchedulesScreen } from './features/schedules/SchedulesScreen';
import { SummaryScreen } from './features/summary/SummaryScreen';
import { TerminalsScreen } from './features/terminals/TerminalsScreen';
import { useConnection, useRoom } from './room-context';
import { EmptyState } from './app/EmptyState';
import { inboxStoreOf } from './stores/feature-stores';

/** The window: a sidebar of screens, a banner while the link to the room is down, and the chosen screen. */
export function App(): React.JSX.Element {
  const [screen, setScreen] = useState<Screen>('terminals');
  // the graph (and stage) an Activity entry asked the Graphs screen to show, instead of the newest graph
  const [openedGraph, setOpenedGraph] = useState<{ graphId: string; stageId: string | null } | null>(null);
  // an ended handoff opened from Activity: History shows it even when the list's filters or pages hide it
  const [openedEnded, setOpenedEnded] = useState<string | null>(null);
  const room = useRoom();
  const choose = (next: Screen) => {
    setOpenedGraph(null);
    setOpenedEnded(null);
    setScreen(next);
  };
  const firstRun = useFirstRun();
  // New task asked for on the first screen: the Terminals screen with its form open
  const [taskAsked, setTaskAsked] = useState(false);
  // an Activity entry opens what it is about: a waiting handoff in the inbox, an ended one in History, the shell in terminals
  const open = (target: Screen, subject: string | null, stageId?: string | null) => {
    if (subject && target === 'inbox') inboxStoreOf(room.client).getState().open(subject);
    if (subject && target === 'terminals') room.shells.getState().select(subject);
    if (target === 'history') setOpenedEnded(subject);
    if (target === 'graphs') setOpenedGraph(subject ? { graphId: subject, stageId: stageId ?? null } : null);
    setScreen(target);
  };
  // a terminal that starts waiting for the person: one notification per wait (keyed by when the wait began)
  useEffect(() => {
    const told = new Set<string>();
    const look = () => {
      for (const shell of room.shells.getState().shells) {
        if (!shell.alive || shell.status.state !== 'waiting') continue;
        const key = `${shell.id}@${shell.status.since}`;
        if (told.has(key)) continue;
        told.add(key);
        notifyShellWaiting(shell, (id) => open('terminals', id));
      }
      // an agent that stalls or stops at its usage limit: one notification each time (keyed by when it began)
      for (const shell of room.shells.getState().shells) {
        const since = shell.condition?.limited?.since ?? shell.condition?.stalled?.since;
        if (!shell.alive || !since || told.has(`${shell.id}@${since}`)) continue;
        told.add(`${shell.id}@${since}`);
        notifyAgentCondition(shell, (id) => open('terminals', id));
      }
    };
    look();
    return room.shells.subscribe(look);
  }, [room.shells]);
  // an agent on a task idle with new commits: one notification per head it reached
  const ready = useReadyForReview();
  const [toldReady] = useState(() => new Set<string>());
  useEffect(() => {
    for (const run of ready) {
      const key = `${run.shellId}@${run.review?.head ?? ''}`;
      if (toldReady.has(key)) continue;
      toldReady.add(key);
      notifyReadyForReview(run, (id) => open('terminals', id));
    }
  }, [ready]);
  // F6 moves between the screens bar and the screen, as in VS Code (the terminal handles its own F6 first)
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'F6' || e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey) return;
      e.preventDefault();
      const inBar = Boolean(document.activeElement?.closest('.sidebar'));
      const target = inBar ? firstFocusable(document.querySelector('main.screen')) : document.querySelector<HTMLElement>('.sidebar .nav-item.active');
      target?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const [unavailable, setUnavailable] = useState<Extract<DesktopMessage, { t: 'desktop.unavailable' }> | null>(null);
  useEffect(
    () =>
      room.desktop?.listen((m) => {
        if (m.t === 'desktop.unavailable') setUnavailable(m);
        // a notification was clicked: the main process brought the window up; show its handoff
        else open(m.screen, m.subject);
      }),
    [room.desktop],
  );
  const state = useConnection((s) => s.state);
  if (unavailable && room.desktop) return <RoomUnavailable why={unavailable} onChooseRoom={() => room.desktop?.chooseRoom()} />;
  // closed for good (signed out, a used link, no bridge): say so where the screen would be, not "loading…"
  const problem = state === 'closed' ? room.problem() : null;
  if (problem) {
    return (
      <div className="app">
        <Sidebar current={screen} onSelect={choose} />
        <main className="screen" aria-label="not connected">
          <div className="no-room" data-testid="no-room">
            <EmptyState tone="error" title="Not connected to the room" text={problem} />
          </div>
        </main>
      </div>
    );
  }
  return (
    <div className="app">
      <Sidebar current={screen} onSelect={choose} />
      <main className="screen" aria-label={screen}>
        <ConnectionBanner />
        <ErrorBoundary resetKey={screen}>
          {screen === 'terminals' && firstRun && !taskAsked ? (
            <FirstRun onAddAgent={() => setScreen('agents')} onOpenShell={() => void room.shells.getState().openShell()} onNewTask={() => setTaskAsked(true)} />
          ) : screen === 'terminals' ? (
            <TerminalsScreen onOpenGraph={(graphId, stageId) => open('graphs', graphId, stageId)} newTask={taskAsked && firstRun} />
          ) : screen === 'graphs' ? (
            <GraphsScreen key={openedGraph ? `${openedGraph.graphId}/${openedGraph.stageId ?? ''}` : 'newest'} opened={openedGraph} onOpenTerminal={() => setScreen('terminals')} />
          ) : screen === 'summary' ? (
            <SummaryScreen onOpen={(o) => open(o.screen, o.id)} />
          ) : screen === 'inbox' ? (
            <InboxScreen />
          ) : screen === 'history' ? (
            <HistoryScreen key={openedEnded ?? 'list'} opened={openedEnded} />
          ) : screen === 'agents' ? (
            <AgentsScreen onOpenTerminal={(id) => open('terminals', id)} />
          ) : screen === 'schedules' ? (
            <SchedulesScreen />
          ) : (
            <ActivityScreen onOpen={(t) => open(t.screen, t.id, t.stageId)} />
          )}
        </ErrorBoundary>
      </main>
    </div>
  );
}

/** The first control the keyboard can reach inside `root`. */
function firstFocusable(root: Element | null): HTMLElement | null {
  return root?.querySelector<HTMLElement>('button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])') ?? null;
}
