import type { ShellView } from '../../../../src-main/common/methods/shells';
import { useConnection, useRoom, useShells } from '../../room-context';

export function ShellList(): React.JSX.Element {
  const { shells: store } = useRoom();
  const shells = useShells((s) => s.shells);
  const selectedId = useShells((s) => s.selectedId);
  const linkOpen = useConnection((s) => s.state === 'open');
  return (
    <aside className="shell-list" aria-label="Shells">
      <div className="shell-list-head">
        <h2>Terminals</h2>
        <button type="button" className="primary small" disabled={!linkOpen} onClick={() => void store.getState().openShell()} data-testid="new-shell">
          + New shell
        </button>
      </div>
      <ul>
        {shells.map((shell) => (
          <li key={shell.id}>
            <button
              type="button"
              className={`shell-item ${shell.id === selectedId ? 'selected' : ''}`}
              aria-current={shell.id === selectedId ? 'true' : undefined}
              data-shell-id={shell.id}
              onClick={() => store.getState().select(shell.id)}
            >
              <span className={`status-dot ${shell.alive ? 'alive' : 'ended'}`} aria-hidden="true" />
              <span className="shell-item-text">
                <span className="shell-name truncate" title={shell.name}>
                  {shell.name}
                </span>
                <span className="shell-meta truncate" title={metaOf(shell)}>
                  {metaOf(shell)}
                </span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}

/** Owner and a short status (the header spells the exit out in full). */
function metaOf(shell: ShellView): string {
  const status = shell.alive ? 'running' : shell.signal ? shell.signal : shell.exitCode !== null ? `exit ${shell.exitCode}` : 'ended';
  return `${shell.owner} · ${status}`;
}
