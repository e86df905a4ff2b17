import { EmptyState } from '../../app/EmptyState';
import { useConnection, useRoom, useShells } from '../../room-context';
import { ShellList } from './ShellList';
import { ShellPanel } from './ShellPanel';

/** Every shell in the room (an agent's, a tty graph stage's, the person's): a list, and the chosen one live. */
export function TerminalsScreen(props: { onOpenGraph?(graphId: string, stageId: string): void; newTask?: boolean }): React.JSX.Element {
  const { shells: store } = useRoom();
  const shells = useShells((s) => s.shells);
  const loaded = useShells((s) => s.loaded);
  const error = useShells((s) => s.error);
  const selectedId = useShells((s) => s.selectedId);
  const linkOpen = useConnection((s) => s.state === 'open');
  const selected = shells.find((s) => s.id === selectedId) ?? null;

  return (
    <div className="terminals">
      <ShellList newTask={props.newTask ?? false} />
      <section className="terminal-area">
        {error && (
          <div className="inline-error" role="alert">
            <span>{error}</span>
            <button type="button" className="link-button" onClick={() => store.getState().dismissError()}>
              Dismiss
            </button>
          </div>
        )}
        {/* a shell on a host is live here like a local one: its output is streamed into the room */}
        {selected ? (
          <ShellPanel key={selected.id} shell={selected} {...(props.onOpenGraph ? { onOpenGraph: props.onOpenGraph } : {})} />
        ) : !loaded ? (
          <EmptyState title="Loading shells…" text="Reading the room’s shells." />
        ) : (
          <EmptyState
            title="No shells yet"
            text="Shells opened by agents, by graph stages with a terminal, or by you show up here, live."
            action={
              <button type="button" className="primary" disabled={!linkOpen} onClick={() => void store.getState().openShell()}>
                Open a shell
              </button>
            }
          />
        )}
      </section>
    </div>
  );
}
