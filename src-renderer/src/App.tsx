import { useState } from 'react';
import { ConnectionBanner } from './app/ConnectionBanner';
import { ErrorBoundary } from './app/ErrorBoundary';
import { Sidebar, type Screen } from './app/Sidebar';
import { ActivityScreen } from './features/activity/ActivityScreen';
import { AgentsScreen } from './features/agents/AgentsScreen';
import { FirstRun } from './features/agents/FirstRun';
import { useFirstRun } from './features/agents/use-first-run';
import { GraphsScreen } from './features/graphs/GraphsScreen';
import { InboxScreen } from './features/inbox/InboxScreen';
import { TerminalsScreen } from './features/terminals/TerminalsScreen';
import { useRoom } from './room-context';
import { inboxStoreOf } from './stores/feature-stores';

/** The window: a sidebar of screens, a banner while the link to the room is down, and the chosen screen. */
export function App(): React.JSX.Element {
  const [screen, setScreen] = useState<Screen>('terminals');
  const room = useRoom();
  const firstRun = useFirstRun();
  // an Activity entry opens what it is about: the handoff in the inbox, the shell in terminals
  const open = (target: Screen, subject: string | null) => {
    if (subject && target === 'inbox') inboxStoreOf(room.client).getState().open(subject);
    if (subject && target === 'terminals') room.shells.getState().select(subject);
    setScreen(target);
  };
  return (
    <div className="app">
      <Sidebar current={screen} onSelect={setScreen} />
      <main className="screen" aria-label={screen}>
        <ConnectionBanner />
        <ErrorBoundary resetKey={screen}>
          {screen === 'terminals' && firstRun ? (
            <FirstRun onAddAgent={() => setScreen('agents')} onOpenShell={() => void room.shells.getState().openShell()} />
          ) : screen === 'terminals' ? (
            <TerminalsScreen />
          ) : screen === 'graphs' ? (
            <GraphsScreen onOpenTerminal={() => setScreen('terminals')} />
          ) : screen === 'inbox' ? (
            <InboxScreen />
          ) : screen === 'agents' ? (
            <AgentsScreen />
          ) : (
            <ActivityScreen onOpen={open} />
          )}
        </ErrorBoundary>
      </main>
    </div>
  );
}
