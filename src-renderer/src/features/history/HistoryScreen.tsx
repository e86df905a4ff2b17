import { useState } from 'react';
import type { HandoffView } from '../../../../src-main/common/handoff-dto';
import { EmptyState } from '../../app/EmptyState';
import { sinceOf, useNow, whenText, type TimeRangeId } from '../../app/time-range';
import { TimeRangeSelect } from '../../app/TimeRangeSelect';
import { useParticipants } from '../../stores/feature-stores';
import { HandoffTimeline } from '../../shared/handoff/HandoffTimeline';
import { ArtifactList, ResultMarkdown } from '../../shared/handoff/ResultView';
import { useHandoff } from '../../shared/handoff/use-handoff';
import { endingOf } from '../../../../src-main/common/handoff-ending';
import { useHandoffHistory, type HistoryFilter } from './use-history';
import { FollowUp } from './FollowUp';
import { KeptChange, mergeText } from './KeptChange';
import '../../shared/panes.css';
import './history.css';

const STATES = [
  { id: '', label: 'every ending' },
  { id: 'approved', label: 'approved' },
  { id: 'rejected', label: 'rejected' },
  { id: 'cancelled', label: 'cancelled or expired' },
] as const;

/** One ended handoff in full: what was asked, the result, and the decision with its reason, then its events. */
function EndedDetail(props: { handoff: HandoffView }): React.JSX.Element {
  const h = props.handoff;
  const end = endingOf(h);
  const [followed, setFollowed] = useState<string | null>(null);
  return (
    <article className="history-detail" aria-label="Ended handoff" data-testid="history-detail">
      <header>
        <h3 className="summary-title">{h.summary}</h3>
        <p className="muted small">
          {h.owner} → {h.to ?? 'anyone'}
          {h.assignee ? ` · done by ${h.assignee}` : ''} · asked {whenText(h.createdAt)}
        </p>
      </header>
      <section className={`ending ending-${end.verb}`} data-testid="history-ending">
        <p>
          <strong className={`chip chip-${h.status}`}>{end.verb}</strong> by <strong>{end.by}</strong>{' '}
          <time dateTime={end.at} title={end.at}>
            {whenText(end.at)}
          </time>
        </p>
        {end.why ? (
          <blockquote data-testid="history-reason">{end.why}</blockquote>
        ) : (
          <p className="muted small">No {h.decision?.approved ? 'note' : 'reason'} was given.</p>
        )}
      </section>
      {followed ? (
        <p className="follow-done" role="status" data-testid="follow-up-done">
          {followed}
        </p>
      ) : (
        <FollowUp handoff={h} onDone={setFollowed} />
      )}
      <KeptChange handoff={h} />
      {h.constraints && (
        <section>
          <h4>Constraints</h4>
          <p className="pre-wrap">{h.constraints}</p>
        </section>
      )}
      {h.result && (
        <section>
          <h4>Result from {h.result.completedBy}</h4>
          <ResultMarkdown text={h.result.text} />
          <ArtifactList artifacts={h.result.artifacts} />
        </section>
      )}
      <section>
        <h4>Events</h4>
        <HandoffTimeline handoffId={h.id} version={h.updatedAt} />
      </section>
    </article>
  );
}

/**
 * Ended handoffs, the most recently ended first: filter by how they ended, who took part, when, and text.
 * `opened`: a handoff opened from elsewhere (an Activity entry), shown even when no loaded page holds it.
 */
export function HistoryScreen(props: { opened?: string | null }): React.JSX.Element {
  const participants = useParticipants((s) => s.participants);
  const [status, setStatus] = useState<HistoryFilter['status'] | ''>('');
  const [participant, setParticipant] = useState('');
  const [range, setRange] = useState<TimeRangeId>('all');
  const [text, setText] = useState('');
  const [selected, setSelected] = useState<string | null>(props.opened ?? null);
  // the room is asked from where the window started when it was chosen (a re-read does not shift it every
  // render); the list then drops what has since aged out of it, so "last hour" stays the last hour
  const [since, setSince] = useState<string | undefined>(undefined);
  const now = useNow(range !== 'all');
  const filter: HistoryFilter = { status: status || undefined, participant: participant || undefined, since, text: text.trim() || undefined };
  const { handoffs: read, loaded, more, error, loadMore } = useHandoffHistory(filter);
  const from = sinceOf(range, now);
  const handoffs = from ? read.filter((h) => endingOf(h).at >= from) : read;
  const names = ['operator', ...participants.map((p) => p.name).filter((n) => n !== 'operator')];
  const listed = handoffs.find((h) => h.id === selected) ?? null;
  // chosen but in no page read here (opened from Activity, past the first page): read on its own
  const outside = useHandoff(selected !== null && listed === null && loaded ? selected : null);
  const chosen = listed ?? outside.handoff;

  return (
    <div className="history">
      <section className="history-list" aria-label="Ended handoffs">
        <header className="pane-head">
          <h2>History</h2>
          <span className="muted">{loaded ? `${handoffs.length}${more ? '+' : ''} ended` : 'reading…'}</span>
        </header>
        <div className="filters">
          <label>
            Ended{' '}
            <select aria-label="Filter by how it ended" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
              {STATES.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Participant{' '}
            <select aria-label="Filter by participant" value={participant} onChange={(e) => setParticipant(e.target.value)}>
              <option value="">anyone</option>
              {names.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <TimeRangeSelect
            value={range}
            onChange={(r, from) => {
              setRange(r);
              setSince(from);
            }}
          />
          <input type="search" aria-label="Search summaries" placeholder="Search summaries" maxLength={200} value={text} onChange={(e) => setText(e.target.value)} />
        </div>
        {error && <p className="form-problem pad">{error}</p>}
        {loaded && handoffs.length === 0 ? (
          <p className="muted pad">No ended handoffs match. Approved, rejected and cancelled handoffs appear here.</p>
        ) : (
          <ul>
            {handoffs.map((h) => {
              const end = endingOf(h);
              return (
                <li key={h.id}>
                  <button
                    type="button"
                    className={`history-item ${h.id === selected ? 'selected' : ''}`}
                    data-handoff-id={h.id}
                    aria-current={h.id === selected ? 'true' : undefined}
                    onClick={() => setSelected(h.id)}
                  >
                    <span className={`chip chip-${h.status}`}>{end.verb}</span>
                    <span className="truncate summary" title={h.summary}>
                      {h.summary}
                    </span>
                    <span className="muted small truncate">
                      by {end.by} · {whenText(end.at)} · {h.owner} → {h.to ?? 'anyone'}
                    </span>
                    {end.why && <span className="small truncate why" title={end.why}>“{end.why}”</span>}
                    {h.workspace?.merge && <span className="small truncate muted">{mergeText(h)}</span>}
                  </button>
                </li>
              );
            })}
          </ul>
        )}
        {more && (
          <button type="button" className="load-more" onClick={loadMore}>
            Load more
          </button>
        )}
      </section>
      {/* it scrolls on its own (a long result): reachable by keyboard, so its text can be scrolled without a mouse */}
      <section className="history-pane" tabIndex={0} aria-label="The chosen handoff">
        {chosen ? (
          <EndedDetail key={chosen.id} handoff={chosen} />
        ) : outside.error ? (
          <EmptyState tone="error" title="History" text={outside.error} />
        ) : (
          <EmptyState title="History" text="Choose an ended handoff to read its decision, reason and result." />
        )}
      </section>
    </div>
  );
}
