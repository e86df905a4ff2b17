import { useEffect, useRef, useState } from 'react';
import type { SummaryItem, SummaryOpen, SummarySection } from '../../../../src-main/common/methods/summary';
import { EmptyState } from '../../app/EmptyState';
import { agoText, whenText } from '../../app/time-range';
import { useShells } from '../../room-context';
import { waitingCount } from '../../shared/shell-status-text';
import { SUMMARY_WINDOWS, useSummary, type SummaryWindowId } from './use-summary';
import './summary.css';

const MARK = { good: '✓', bad: '✗', plain: '•' } as const;
const TONE_WORD = { good: 'went well', bad: 'needs a look', plain: '' } as const;

/**
 * While you were away: what waits for the person (oldest first), what finished, failed, stalled or hit a limit
 * and where, what is ready to merge with its checks, spend and schedules — the room's summary (room_summary),
 * read again as the room changes. Each line opens what it is about.
 */
export function SummaryScreen(props: { onOpen(open: SummaryOpen): void }): React.JSX.Element {
  const [windowId, setWindowId] = useState<SummaryWindowId>('8h');
  const { summary, error, reload } = useSummary(windowId);
  // a terminal that starts or stops asking is no event: the shells' own feed says so, and the summary is read again
  const asking = useShells((s) => waitingCount(s.shells));
  const seen = useRef(asking);
  useEffect(() => {
    if (seen.current === asking) return;
    seen.current = asking;
    reload();
  }, [asking, reload]);
  const label = SUMMARY_WINDOWS.find((w) => w.id === windowId)?.label ?? '';
  return (
    <div className="summary-screen">
      <header className="pane-head">
        <h2>While you were away</h2>
        {summary && (
          <span className="muted small" title={summary.since}>
            since {whenText(summary.since)}
          </span>
        )}
        <label className="summary-window small">
          Looking back over{' '}
          <select aria-label="Summary window" value={windowId} onChange={(e) => setWindowId(e.target.value as SummaryWindowId)}>
            {SUMMARY_WINDOWS.map((w) => (
              <option key={w.id} value={w.id}>
                {w.label}
              </option>
            ))}
          </select>
        </label>
      </header>
      {error && <p className="form-problem summary-problem">{error}</p>}
      {!summary ? (
        !error && <EmptyState title="Summary" text="Reading the room…" />
      ) : summary.sections.length === 0 ? (
        <EmptyState title="All quiet" text={`Nothing waits for you, and nothing finished, failed or stopped in ${label}.`} />
      ) : (
        <div className="summary-body" data-testid="summary-body">
          {summary.partial && <p className="notice">The room no longer keeps all of {label}: its oldest events were dropped, so some may be missing here.</p>}
          {summary.sections.map((s) => (
            <Section key={s.id} section={s} onOpen={props.onOpen} />
          ))}
        </div>
      )}
    </div>
  );
}

function Section(props: { section: SummarySection; onOpen(open: SummaryOpen): void }): React.JSX.Element {
  const { section } = props;
  const headingId = `summary-${section.id}`;
  return (
    <section className={`summary-section summary-${section.id}`} aria-labelledby={headingId} data-section={section.id}>
      <h3 id={headingId}>
        {section.title} <span className="summary-counts">{section.counts}</span>
      </h3>
      <ol>
        {section.items.map((item, i) => (
          <Item key={`${item.kind}-${item.subject ?? ''}-${item.at}-${i}`} item={item} waiting={section.id === 'waiting'} onOpen={props.onOpen} />
        ))}
      </ol>
      {section.more > 0 && <p className="muted small summary-more">…and {section.more} more: Activity lists every event.</p>}
    </section>
  );
}

function Item(props: { item: SummaryItem; waiting: boolean; onOpen(open: SummaryOpen): void }): React.JSX.Element {
  const { item } = props;
  const tone = item.tone ?? 'plain';
  const open = item.open ?? null;
  return (
    <li className={`summary-item tone-${tone}`} data-kind={item.kind}>
      <span className="summary-mark" aria-hidden="true">
        {MARK[tone]}
      </span>
      <div className="summary-main">
        {open ? (
          <button type="button" className="link summary-text" title={`${item.text}: open in ${open.screen}`} onClick={() => props.onOpen(open)}>
            {item.text}
          </button>
        ) : (
          <span className="summary-text">{item.text}</span>
        )}
        {TONE_WORD[tone] && <span className="visually-hidden"> ({TONE_WORD[tone]})</span>}
        {item.host && !item.text.includes(`on ${item.host}`) && <span className="chip summary-host">on {item.host}</span>}
        {(item.detail ?? []).map((d) => (
          <p key={d} className="summary-detail small">
            {d}
          </p>
        ))}
      </div>
      <time className="muted small" dateTime={item.at} title={item.at}>
        {props.waiting ? waitedText(item.at) : whenText(item.at)}
      </time>
    </li>
  );
}

/** How long something has waited: "waiting 3 h", "waiting a moment". */
function waitedText(at: string): string {
  const ago = agoText(at);
  return ago === 'just now' ? 'waiting a moment' : `waiting ${ago.replace(' ago', '')}`;
}
