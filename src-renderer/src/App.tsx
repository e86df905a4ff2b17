import { useState } from 'react';
import { ConnectionBanner } from './app/ConnectionBanner';
import { EmptyState } from './app/EmptyState';
import { ErrorBoundary } from './app/ErrorBoundary';
import { Sidebar, type Screen } from './app/Sidebar';
import { GraphsScreen } from './features/graphs/GraphsScreen';
import { TerminalsScreen } from './features/terminals/TerminalsScreen';

const LATER: Record<Exclude<Screen, 'terminals' | 'graphs'>, { title: string; text: string }> = {
  inbox: { title: 'Inbox', text: 'Handoffs waiting for your approval or answer will show here. Coming in part 2.' },
  agents: { title: 'Agents', text: 'The agents in this room, their tokens and capabilities will show here. Coming in part 2.' },
  activity: { title: 'Activity', text: 'The room’s change feed, newest first, will show here. Coming in part 2.' },
};

/** The window: a sidebar of screens, a banner while the link to the room is down, and the chosen screen. */
export function App(): React.JSX.Element {
  const [screen, setScreen] = useState<Screen>('terminals');
  return (
    <div className="app">
      <Sidebar current={screen} onSelect={setScreen} />
      <main className="screen" aria-label={screen}>
        <ConnectionBanner />
        <ErrorBoundary resetKey={screen}>
          {screen === 'terminals' ? <TerminalsScreen /> : screen === 'graphs' ? <GraphsScreen onOpenTerminal={() => setScreen('terminals')} /> : <EmptyState title={LATER[screen].title} text={LATER[screen].text} />}
        </ErrorBoundary>
      </main>
    </div>
  );
}
