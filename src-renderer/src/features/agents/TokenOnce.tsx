import { useState } from 'react';
import { connectSnippets } from './snippets';

/** A new agent's token, shown this once, with snippets for the usual clients. Closing it forgets the token. */
export function TokenOnce(props: { name: string; token: string; url: string; onDone(): void }): React.JSX.Element {
  const snippets = connectSnippets(props.url, props.token);
  const [tab, setTab] = useState(snippets[0]?.id ?? '');
  const [copied, setCopied] = useState<string | null>(null);
  const shown = snippets.find((s) => s.id === tab) ?? snippets[0];

  async function copy(text: string, what: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(what);
    } catch {
      setCopied('select the text and copy it yourself (the clipboard is not available here)');
    }
  }

  return (
    <section className="card token-once" aria-label="New token" data-testid="token-once">
      <h2>Connect {props.name}</h2>
      <p className="notice">This token is shown once. Copy it now: the room keeps only its hash.</p>
      <div className="endpoint-url" data-testid="new-token">
        {props.token}
      </div>
      <div className="actions">
        <button type="button" className="plain" onClick={() => void copy(props.token, 'token')}>
          Copy token
        </button>
      </div>
      <div className="snippet-tabs" role="tablist">
        {snippets.map((s) => (
          <button key={s.id} type="button" role="tab" aria-selected={s.id === tab} className={s.id === tab ? 'active' : ''} onClick={() => setTab(s.id)}>
            {s.label}
          </button>
        ))}
      </div>
      {shown && (
        <>
          <small className="muted">{shown.where}</small>
          <pre className="snippet" data-testid={`snippet-${shown.id}`}>
            {shown.text}
          </pre>
          <div className="actions">
            <button type="button" className="plain" onClick={() => void copy(shown.text, shown.label)}>
              Copy {shown.label} snippet
            </button>
            <button type="button" className="primary" onClick={props.onDone}>
              Done, hide the token
            </button>
          </div>
        </>
      )}
      {copied && <small className="muted">Copied: {copied}</small>}
    </section>
  );
}
