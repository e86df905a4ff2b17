import { useState } from 'react';
import { useConnection } from '../../room-context';
import './first-run.css';

/**
 * The CLI way to add an agent, for people who live in a terminal (the same as Agents → Add), naming this room's
 * file: without --room, ce finds the default room, which is not this one when it was started with --room.
 */
function cliAdd(roomFile: string | undefined): string {
  const room = roomFile ? ` --room ${/^[A-Za-z0-9_./-]+$/.test(roomFile) ? roomFile : `'${roomFile.replaceAll("'", "'\\''")}'`}` : '';
  return `ce participant add claude --can read,write${room}`;
}

/**
 * What a new room shows first (no agent added yet, nothing running): where agents connect and the three steps
 * to connect one, so the person is never left looking at empty lists; or an agent started on a task at once
 * (`onNewTask`: the Terminals screen with its New task form open).
 */
export function FirstRun(props: { onAddAgent(): void; onOpenShell(): void; onNewTask(): void }): React.JSX.Element {
  const hello = useConnection((s) => s.hello);
  const [copied, setCopied] = useState(false);
  const url = hello?.mcpUrl ?? '';

  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }

  return (
    <section className="first-run" data-testid="first-run" aria-label="Get started">
      <h2>Your room is ready</h2>
      <p className="muted">Agents that speak MCP over HTTP (Claude Code, Cursor, Codex…) connect to this endpoint, on this machine only:</p>
      <div className="first-run-endpoint">
        <code data-testid="first-run-endpoint">{url || 'connecting…'}</code>
        <button type="button" className="small" disabled={!url} onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <ol className="first-run-steps">
        <li>
          <strong>Add an agent.</strong> Each agent gets its own token, with only what it needs. It is shown once.
        </li>
        <li>
          <strong>Paste the snippet</strong> for your client (Claude Code, Claude Desktop, Cursor, Codex or plain HTTP).
        </li>
        <li>
          <strong>Watch here.</strong> Its shells, task graphs and handoffs show up live; results wait in your Inbox.
        </li>
      </ol>
      <div className="first-run-actions">
        <button type="button" className="primary" onClick={props.onAddAgent}>
          Add an agent
        </button>
        <button type="button" onClick={props.onNewTask} disabled={!url} data-testid="first-run-task">
          Start an agent on a task
        </button>
        <button type="button" onClick={props.onOpenShell} disabled={!url}>
          Open a shell myself
        </button>
      </div>
      <p className="muted small">
        From a terminal instead: <code data-testid="first-run-cli">{cliAdd(hello?.room)}</code> (in a checkout, <code>node bin/ce.js</code> for <code>ce</code>)
      </p>
    </section>
  );
}
