import { useEffect, useState } from 'react';
import type { ShellView } from '../../../../src-main/common/methods/shells';
import { useConnection, useRoom } from '../../room-context';
import { statusBadge, statusText } from '../../shared/shell-status-text';
import { ShellName } from './ShellList';
import './remote-shell.css';

/** The most output this panel keeps (its newest part): a look at the shell, not its whole scrollback. */
const KEEP_CHARS = 64 * 1024;

/**
 * A shell on one of the room's hosts (docs/hosts.md): its host's node owns its terminal, so this panel reads
 * its output through shell_io, as an agent does, and shows it as text; a live terminal view of a remote shell
 * comes later. A host that cannot be reached is said as such: the shell goes on there, unknown until it is back.
 */
export function RemoteShellPanel({ shell }: { shell: ShellView }): React.JSX.Element {
  const { client, shells: store } = useRoom();
  const linkOpen = useConnection((s) => s.state === 'open');
  const [output, setOutput] = useState<string | null>(null);
  const [readAt, setReadAt] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [reading, setReading] = useState(false);
  const [closing, setClosing] = useState(false);

  /** Bumped by "Read again": the output is read from the start, then followed. */
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let live = true;
    const refreshList = () => void store.getState().refresh();
    void (async () => {
      setReading(true);
      try {
        let cursor = 'start';
        let text = '';
        for (let page = 0; page < 64; page++) {
          const r = await client.call('shell_io', { shellId: shell.id, cursor });
          text = (text + r.output).slice(-KEEP_CHARS);
          cursor = r.nextCursor;
          if (!r.more) break;
        }
        if (!live) return;
        setOutput(text);
        setReadAt(new Date().toLocaleTimeString());
        setProblem(null);
        setReading(false);
        // a host that was away and answers again: the list marks it reachable
        if (generation > 0) refreshList();
        // then followed: each read waits on the host for anything new (a wait there, never a poll here)
        while (live) {
          const r = await client.call('shell_io', { shellId: shell.id, cursor, wait: { until: 'match', pattern: '[\\s\\S]', timeoutMs: 20_000 } });
          if (!live) return;
          if (r.output) {
            setOutput((before) => ((before ?? '') + r.output).slice(-KEEP_CHARS));
            setReadAt(new Date().toLocaleTimeString());
          }
          cursor = r.nextCursor;
          if (!r.alive) {
            refreshList();
            return;
          }
        }
      } catch (error) {
        if (!live) return;
        setProblem((error as Error).message);
        setReading(false);
        // the list says the host is unreachable (shell_list marks it) rather than the shell ended
        refreshList();
      }
    })();
    return () => {
      live = false;
    };
  }, [client, shell.id, store, generation]);

  const unreachable = shell.hostReachable === false;
  return (
    <div className="shell-panel remote-shell" data-testid="remote-shell-panel">
      <header className="shell-header">
        <div className="shell-title">
          <span className={`status-dot ${shell.alive ? 'alive' : 'ended'}`} aria-hidden="true" />
          <h3 className="truncate" title={shell.name}>
            <ShellName shell={shell} />
          </h3>
          <span className={`badge ${unreachable ? 'badge-warn' : statusBadge(shell)}`} data-testid="shell-status">
            {unreachable ? 'unknown' : statusText(shell)}
          </span>
        </div>
        <div className="shell-facts">
          <span className="truncate" title={`host: ${shell.host ?? ''}`}>
            <span className="fact-label">host</span> {shell.host}
          </span>
          <span className="truncate" title={`owner: ${shell.owner}`}>
            <span className="fact-label">owner</span> {shell.owner}
          </span>
          <span className="truncate" title={shell.cwd}>
            <span className="fact-label">cwd</span> {shell.cwd}
          </span>
        </div>
        <div className="shell-actions">
          <button type="button" disabled={!linkOpen || reading} onClick={() => setGeneration((g) => g + 1)} data-testid="remote-read">
            {reading ? 'Reading…' : 'Read again'}
          </button>
          <button
            type="button"
            className="danger"
            disabled={!linkOpen || closing || unreachable}
            onClick={() => {
              setClosing(true);
              void client.call('shell_close', { shellId: shell.id }).then(
                () => void store.getState().refresh(),
                (error: Error) => {
                  setClosing(false);
                  setProblem(error.message);
                },
              );
            }}
          >
            Close
          </button>
        </div>
      </header>
      {(problem || unreachable) && (
        <div className="inline-error" role="alert" data-testid="remote-problem">
          <span>{problem ?? `${shell.host} cannot be reached now: the shell goes on there, and what it does is unknown here until it is back.`}</span>
        </div>
      )}
      <p className="terminal-hint" data-testid="terminal-hint">
        This shell runs on <strong>{shell.host}</strong>: its output, followed through the host's node{readAt ? ` (last at ${readAt})` : ''}. Typing into it here comes later; agents type into it with shell_io.
      </p>
      <div className="shell-body">
        <pre className="remote-output" data-testid="remote-output" tabIndex={0} aria-label={`Output of ${shell.name} on ${shell.host ?? 'its host'}`}>
          {output ?? ''}
        </pre>
      </div>
    </div>
  );
}
