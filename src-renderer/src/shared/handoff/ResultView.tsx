import ReactMarkdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import type { ArtifactRef } from '../../../../src-main/common/handoff-dto';

/**
 * An agent's result as sanitized markdown (GitHub's flavour: tables, task lists, strikethrough, autolinks). Images are shown as their text (never loaded): nothing an agent
 * wrote makes this window fetch anything.
 */
export function ResultMarkdown(props: { text: string }): React.JSX.Element {
  return (
    <div className="markdown" data-testid="result">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        rehypePlugins={[rehypeSanitize]}
        components={{
          img: ({ alt, src }) => <span className="muted">[image {alt ? `“${alt}”` : ''} {typeof src === 'string' ? src : ''}]</span>,
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noreferrer noopener">
              {children}
            </a>
          ),
        }}
      >
        {props.text}
      </ReactMarkdown>
    </div>
  );
}

/** Artifact references as text: the room stores them as given and this view never opens them. */
export function ArtifactList(props: { artifacts: ArtifactRef[] }): React.JSX.Element | null {
  if (props.artifacts.length === 0) return null;
  return (
    <ul className="artifacts" aria-label="Artifacts">
      {props.artifacts.map((a, i) => (
        <li key={`${a.uri}-${i}`}>
          {a.name && <strong>{a.name} </strong>}
          <code>{a.uri}</code>
          {a.mediaType && <span className="muted"> ({a.mediaType})</span>}
        </li>
      ))}
    </ul>
  );
}
