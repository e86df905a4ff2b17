import { useEffect, useMemo, useRef, useState } from 'react';
import type { StageLog } from '../../stores/graphs-store';
import { attemptsIn, logLines } from './log-lines';

/**
 * A stage's log: numbered lines (stderr and the runner's notes told apart), an attempt picker when it was
 * retried (the latest attempt first: the one that ended it), search with the matches marked and Enter going
 * to the next, and Expand to fill the screen (Esc or Collapse returns). Follows the newest output unless the
 * person searched or picked an earlier attempt.
 */
export function StageLogView(props: { log: StageLog | null; stageId: string }): React.JSX.Element {
  const { log } = props;
  const [expanded, setExpanded] = useState(false);
  const [needle, setNeedle] = useState('');
  const [attempt, setAttempt] = useState<number | 'all' | null>(null);
  const [hit, setHit] = useState(0);
  const body = useRef<HTMLDivElement>(null);
  const lines = useMemo(() => logLines(log?.records ?? []), [log?.records]);
  const attempts = useMemo(() => attemptsIn(lines), [lines]);
  const chosen = attempt ?? (attempts.length > 1 ? (attempts.at(-1) ?? 'all') : 'all');
  const shown = chosen === 'all' ? lines : lines.filter((l) => l.attempt === chosen);
  const n = needle.trim().toLowerCase();
  const hits = useMemo(() => (n === '' ? [] : shown.filter((l) => l.text.toLowerCase().includes(n)).map((l) => l.n)), [shown, n]);
  const following = n === '' && (chosen === 'all' || chosen === attempts.at(-1));

  useEffect(() => {
    const el = body.current;
    if (el && following) el.scrollTop = el.scrollHeight;
  }, [lines.length, following, expanded]);
  useEffect(() => {
    const target = hits[hit % Math.max(1, hits.length)];
    if (target !== undefined) body.current?.querySelector(`[data-line="${target}"]`)?.scrollIntoView({ block: 'center' });
  }, [hit, hits]);
  useEffect(() => {
    if (!expanded) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setExpanded(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [expanded]);

  const current = hits.length > 0 ? hits[hit % hits.length] : undefined;
  return (
    <section className={`stage-log-view ${expanded ? 'expanded' : ''}`} aria-label={`Log of ${props.stageId}`} role={expanded ? 'dialog' : undefined} aria-modal={expanded || undefined}>
      <div className="stage-log-head">
        <span className="muted">
          {expanded ? `Log of ${props.stageId}` : 'Log'}
          {log?.spooled ? ' (archived)' : ''}
          {log?.truncated ? ' — older lines are not shown' : ''}
        </span>
        {attempts.length > 1 && (
          <select aria-label="Attempt" value={String(chosen)} onChange={(e) => setAttempt(e.target.value === 'all' ? 'all' : Number(e.target.value))}>
            {attempts.map((a) => (
              <option key={a} value={a}>
                attempt {a}
                {a === attempts.at(-1) ? ' (last)' : ''}
              </option>
            ))}
            <option value="all">all attempts</option>
          </select>
        )}
        <input
          type="search"
          aria-label="Search the log"
          placeholder="Search the log"
          maxLength={200}
          value={needle}
          onChange={(e) => (setNeedle(e.target.value), setHit(0))}
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            e.preventDefault();
            setHit((h) => h + (e.shiftKey ? hits.length - 1 : 1));
          }}
        />
        {n !== '' && (
          <span className="muted small" data-testid="log-hits" aria-live="polite">
            {hits.length === 0 ? 'no match' : `${(hit % hits.length) + 1} of ${hits.length}`}
          </span>
        )}
        <button type="button" onClick={() => setExpanded((x) => !x)} aria-pressed={expanded}>
          {expanded ? 'Collapse' : 'Expand'}
        </button>
      </div>
      <div className="stage-log" ref={body} data-testid="stage-log" tabIndex={0} role="log" aria-label="Log lines">
        {log === null ? (
          <p className="muted">Reading…</p>
        ) : shown.length === 0 ? (
          <p className="muted">No output yet.</p>
        ) : (
          shown.map((l) => (
            <div key={l.n} data-line={l.n} className={`log-line log-${l.stream} ${n !== '' && hits.includes(l.n) ? 'hit' : ''} ${l.n === current ? 'current' : ''}`}>
              <span className="log-n" aria-hidden="true">
                {l.n}
              </span>
              <span className="log-text">{l.text}</span>
            </div>
          ))
        )}
      </div>
    </section>
  );
}
