import { useEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { mutedAgents, setAgentMuted } from '../../stores/notify';
import { AgentCalls } from './AgentCalls';
import { statusBadge, statusText } from '../../shared/shell-status-text';
import { AgentCondition } from './AgentCondition';
import './new-task.css';
import type { ShellView } from '../../../../src-main/common/methods/shells';
import { useConnection, useRoom, useShells } from '../../room-context';
import { SearchBar } from './SearchBar';
import { TerminalSession, describeExit } from './terminal-session';
import { ShellName } from './ShellList';
import { stageOf } from '../../shared/stage-shell';

/** One shell: who owns it, where it runs, whether it lives; its terminal; search, copy and close. */
export function ShellPanel({ shell, onOpenGraph }: { shell: ShellView; onOpenGraph?(graphId: string, stageId: string): void }): React.JSX.Element {
  const stage = stageOf(shell);
  const { client, shells: store } = useRoom();
  const linkOpen = useConnection((s) => s.state === 'open');
  const host = useRef<HTMLDivElement>(null);
  const [session, setSession] = useState<TerminalSession | null>(null);
  const [truncated, setTruncated] = useState(false);
  const [searching, setSearching] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [closing, setClosing] = useState(false);
  const [typing, setTyping] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  // whoever drives a shell sizes it: the person's own shell (an agent the room started for them included) is
  // theirs to drive when no other view does; an agent's keeps its own size until the person takes it over. The
  // room answers which (a phone or a second tab watching the desktop's shell shows it at the desktop's size).
  // Only a view the person chose claims it: a page that merely shows the first shell (none chosen there) watches.
  const operator = client.identity?.operator ?? 'operator';
  const mine = shell.owner === operator || Boolean(shell.agent);
  const chosen = useShells((s) => s.chosen);
  const [sized, setSized] = useState(mine && chosen);

  useEffect(() => {
    if (!host.current) return;
    const created = new TerminalSession(host.current, shell.id, client, {
      exited: (exit) => store.getState().shellExited(shell.id, exit),
      truncated: () => setTruncated(true),
      failed: setProblem,
      driving: setSized,
    }, shell.alive, sized, { cols: shell.cols, rows: shell.rows });
    setSession(created);
    created.term.attachCustomKeyEventHandler((e) => {
      // the way out by keyboard (every other key is the shell's, Tab and Esc included): F6 to the shell list,
      // Shift+F6 back to this panel's buttons, as VS Code's F6 leaves its terminal for the next part
      if (e.key === 'F6' && !e.ctrlKey && !e.altKey && !e.metaKey) {
        if (e.type === 'keydown') {
          e.preventDefault();
          leaveTerminal(shell.id, e.shiftKey ? 'back' : 'on', panel.current);
        }
        return false;
      }
      if (e.type === 'keydown' && e.ctrlKey && e.shiftKey && e.code === 'KeyF') {
        setSearching(true);
        return false;
      }
      if (e.type === 'keydown' && e.ctrlKey && e.shiftKey && e.code === 'KeyC') {
        void created.copy();
        return false;
      }
      return true;
    });
    // not focused on load: the person goes into the terminal (a click, or Tab), and F6 takes them out
    const ta = created.term.textarea;
    const onFocus = () => setTyping(true);
    const onBlur = () => setTyping(false);
    ta?.addEventListener('focus', onFocus);
    ta?.addEventListener('blur', onBlur);
    ta?.setAttribute('aria-label', `Terminal: ${shell.name}. Typing goes to the shell; F6 leaves the terminal.`);
    return () => {
      ta?.removeEventListener('focus', onFocus);
      ta?.removeEventListener('blur', onBlur);
      created.dispose();
    };
    // one terminal per shell: ShellPanel is keyed by the shell id
  }, []);

  // the person chose the shell this page was only showing: it claims the size (the room answers whether it drives)
  useEffect(() => {
    if (!session || !chosen || !mine || sized) return;
    setSized(true);
    session.claimSize();
    // only the choice claims: a view the room later told it does not drive keeps watching
  }, [session, chosen]);
  useEffect(() => session?.setAlive(shell.alive), [session, shell.alive]);
  useEffect(() => session?.setShellSize(shell.cols, shell.rows), [session, shell.cols, shell.rows]);

  // a shell on a host that cannot be reached now: it goes on there, what it does is unknown here until it is back
  const unreachable = shell.hostReachable === false;
  const status = unreachable ? 'unknown' : shell.alive ? statusText(shell) : describeExit(shell);
  return (
    <div className="shell-panel" ref={panel}>
      <header className="shell-header">
        <div className="shell-title">
          <span className={`status-dot ${shell.alive ? (shell.status.state === 'waiting' ? 'waiting' : 'alive') : 'ended'}`} aria-hidden="true" />
          <h3 className="truncate" title={shell.name}>
            <ShellName shell={shell} />
          </h3>
          <span className={`badge ${unreachable ? 'badge-warn' : statusBadge(shell)}`} data-testid="shell-status" title={shell.status.reason ?? undefined}>
            {status}
          </span>
          {shell.agent && <NotifyToggle participant={shell.agent.participant} />}
          {truncated && (
            <span className="badge badge-warn" title="Older output left the room's scrollback; the terminal shows a marker line where it was cut.">
              scrollback truncated
            </span>
          )}
        </div>
        <div className="shell-facts">
          <span className="truncate" title={`owner: ${shell.owner}`}>
            <span className="fact-label">owner</span> {shell.owner}
          </span>
          <span className="truncate" title={shell.cwd}>
            <span className="fact-label">cwd</span> {shell.cwd}
          </span>
          {/* after owner and cwd: the narrow layouts size those two first */}
          {shell.host !== undefined && (
            <span className="truncate" title={`host: ${shell.host} (its room node runs the shell; its output is streamed here)`} data-testid="shell-host-fact">
              <span className="fact-label">host</span> {shell.host}
            </span>
          )}
          <span className="nowrap" data-testid="shell-size" title={sized ? 'This shell follows the size of this panel' : 'Another view (or its owner) sets this size; watching does not change it'}>
            <span className="fact-label">size</span> {shell.cols}×{shell.rows}
          </span>
        </div>
        <div className="shell-actions">
          {stage && onOpenGraph && (
            <button type="button" data-testid="open-stage-graph" title="Show this stage in its graph on the Graphs screen" onClick={() => onOpenGraph(stage.graphId, stage.stageId)}>
              Open graph
            </button>
          )}
          <button type="button" onClick={() => setSearching((s) => !s)} aria-pressed={searching} title="Search the scrollback (Ctrl+Shift+F)" data-testid="search-toggle">
            Search
          </button>
          <button type="button" onClick={() => void session?.copy()} title="Copy the selection, or the screen when nothing is selected (Ctrl+Shift+C)">
            Copy
          </button>
          {!sized && shell.alive && (
            <button
              type="button"
              data-testid="take-over-size"
              title={`Size this shell from this panel from now on: ${shell.owner}'s programs see the new size`}
              onClick={() => {
                // the panel loses its fixed-size scrolling first, so the fit measures the panel it will have (one
                // measured with the scrollbar still there was a row short, and a second resize followed)
                flushSync(() => setSized(true));
                session?.takeOverSize();
              }}
            >
              Fit to panel
            </button>
          )}
          <button
            type="button"
            className="danger"
            disabled={!linkOpen || closing}
            title={shell.alive ? 'End this shell and everything it started' : 'Remove this ended shell'}
            onClick={() => {
              setClosing(true);
              void store.getState().closeShell(shell.id).finally(() => setClosing(false));
            }}
          >
            {shell.alive ? 'Close' : 'Remove'}
          </button>
        </div>
      </header>
      {unreachable && (
        <div className="inline-error" role="alert" data-testid="host-unreachable">
          <span>
            {shell.host} cannot be reached now: the shell goes on there, and what it does is unknown here until it is back. Below is its output as it last
            reached the room; it follows on by itself when the host answers again.
          </span>
        </div>
      )}
      {shell.agent && <AgentCondition shell={shell} />}
      {searching && session && <SearchBar session={session} onClose={() => setSearching(false)} />}
      {problem && (
        <div className="inline-error" role="alert">
          <span>{problem}</span>
          <button type="button" className="link-button" onClick={() => setProblem(null)}>
            Dismiss
          </button>
        </div>
      )}
      <p className={`terminal-hint${typing ? ' typing' : ''}`} data-testid="terminal-hint">
        {typing ? (
          <>
            Typing goes to the shell (Tab and Esc too). <kbd>F6</kbd> leaves the terminal, <kbd>Shift</kbd>+<kbd>F6</kbd> goes back to its buttons.
          </>
        ) : (
          <>
            Click the terminal or Tab into it to type; <kbd>F6</kbd> leaves it.
          </>
        )}
      </p>
      <div className="shell-body">
        <div className={`terminal-host${sized ? '' : ' fixed-size'}`} ref={host} data-testid="terminal" data-shell-id={shell.id} />
        {shell.agent && <AgentCalls participant={shell.agent.participant} shellId={shell.id} />}
      </div>
    </div>
  );
}

/** Moves focus out of the terminal: on to the shell's entry in the list, or back to the panel's first button. */
function leaveTerminal(shellId: string, direction: 'on' | 'back', panel: HTMLElement | null): void {
  const target =
    direction === 'on'
      ? (document.querySelector<HTMLElement>(`.shell-item[data-shell-id="${CSS.escape(shellId)}"]`) ?? document.querySelector<HTMLElement>('.nav-item.active'))
      : panel?.querySelector<HTMLElement>('.shell-actions button');
  target?.focus();
}

/** Whether this agent's waits raise a desktop notification (on by default; kept per participant). */
function NotifyToggle(props: { participant: string }): React.JSX.Element {
  const [muted, setMuted] = useState(() => mutedAgents().has(props.participant));
  return (
    <button
      type="button"
      className="small"
      aria-pressed={!muted}
      data-testid="notify-toggle"
      title={muted ? `No desktop notification when ${props.participant} waits for you` : `A desktop notification when ${props.participant} waits for you`}
      onClick={() => {
        setAgentMuted(props.participant, !muted);
        setMuted(!muted);
      }}
    >
      {muted ? 'Notify: off' : 'Notify: on'}
    </button>
  );
}
