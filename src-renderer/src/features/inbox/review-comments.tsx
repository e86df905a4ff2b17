import { useState } from 'react';
import type { LineComment } from '../../../../src-main/common/handoff-dto';

/** What a line of the diff carries in the diff view: the comments made on it. */
export type LineNotes = LineComment[];

/** The diff view's extendData for one file: its comments, by side and line. */
export function notesOf(comments: readonly LineComment[], path: string): { oldFile: Record<string, { data: LineNotes }>; newFile: Record<string, { data: LineNotes }> } {
  const out = { oldFile: {} as Record<string, { data: LineNotes }>, newFile: {} as Record<string, { data: LineNotes }> };
  for (const c of comments) {
    if (c.path !== path) continue;
    const side = c.side === 'old' ? out.oldFile : out.newFile;
    (side[String(c.line)] ??= { data: [] }).data.push(c);
  }
  return out;
}

/** The form under a line of the diff where the person writes a comment (Ctrl+Enter saves, Escape closes). */
export function CommentForm(props: { where: string; onSave(text: string): void; onClose(): void }): React.JSX.Element {
  const [text, setText] = useState('');
  const save = () => {
    if (text.trim() === '') return;
    props.onSave(text.trim());
    props.onClose();
  };
  return (
    <div className="line-comment-form" data-testid="line-comment-form">
      <label className="small muted" htmlFor="line-comment-text">
        Comment on {props.where} (sent to the agent with “Request changes”)
      </label>
      <textarea
        id="line-comment-text"
        rows={2}
        value={text}
        maxLength={2000}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) save();
          if (e.key === 'Escape') props.onClose();
          e.stopPropagation();
        }}
      />
      <span className="line-comment-actions">
        <button type="button" className="primary" disabled={text.trim() === ''} onClick={save} data-testid="save-line-comment">
          Add comment
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </span>
    </div>
  );
}

/** The comments on one line, each with a way to take it back before it is sent. */
export function CommentNotes(props: { notes: LineNotes; onRemove?: ((c: LineComment) => void) | undefined }): React.JSX.Element {
  return (
    <ul className="line-comments" data-testid="line-comments">
      {props.notes.map((c, i) => (
        <li key={i}>
          <span className="line-comment-text">{c.text}</span>
          {props.onRemove && (
            <button type="button" className="plain small" onClick={() => props.onRemove?.(c)} aria-label={`Remove the comment on ${c.path}:${c.line}`}>
              Remove
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

/** A decision's (or a follow-up's) comments as a list under its reason: file and line, then the text. */
export function SentComments(props: { comments: readonly LineComment[]; title: string }): React.JSX.Element | null {
  if (props.comments.length === 0) return null;
  return (
    <div className="sent-comments" data-testid="sent-comments">
      <p className="small muted">{props.title}</p>
      <ul>
        {props.comments.map((c, i) => (
          <li key={i}>
            <code>
              {c.path}:{c.line}
              {c.side === 'old' ? ' (old)' : ''}
            </code>{' '}
            {c.text}
          </li>
        ))}
      </ul>
    </div>
  );
}
