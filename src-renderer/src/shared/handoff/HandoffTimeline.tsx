import { useEffect, useState } from 'react';
import type { EventPage } from '../../../../src-main/common/handoff-dto';
import { describeError } from '../../stores/coalesced-read';
import { useRoom } from '../../room-context';

/** A handoff's events, oldest first, re-read whenever the handoff changes (`version`). */
export function HandoffTimeline(props: { handoffId: string; version: string }): React.JSX.Element {
  const { client } = useRoom();
  const [page, setPage] = useState<EventPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    client.call('handoff_events', { handoffId: props.handoffId, limit: 200 }).then(
      (p) => live && (setPage(p), setError(null)),
      (e: unknown) => live && setError(describeError(e, 'could not read its events')),
    );
    return () => {
      live = false;
    };
  }, [client, props.handoffId, props.version]);

  if (error) return <p className="form-problem">{error}</p>;
  if (!page) return <p className="muted">Reading events…</p>;
  const first = page.events[0];
  // the ring keeps only the newest events: without its creation event, the start of this story is gone
  const dropped = page.oldestRetainedId !== null && page.oldestRetainedId > 1 && first?.kind !== 'handoff.created';
  return (
    <div className="timeline" data-testid="handoff-timeline">
      {dropped && <p className="notice">Older events of this handoff were dropped by the room (it keeps the newest ones only).</p>}
      <ol>
        {page.events.map((e) => (
          <li key={e.id}>
            <span className="ev-kind">{e.kind.replace(/^handoff\./, '')}</span>
            <span className="ev-actor truncate" title={e.actor ?? 'room'}>{e.actor ?? 'room'}</span>
            <time className="muted" dateTime={e.at} title={e.at}>
              {new Date(e.at).toLocaleTimeString()}
            </time>
            {/* what the room did on its own (a step a crash cut short, finished or undone at restart) says so in words */}
            {typeof (e.data as { message?: unknown } | null)?.message === 'string' && <p className="ev-message muted small">{(e.data as { message: string }).message}</p>}
          </li>
        ))}
      </ol>
      {page.more && <p className="muted">More events exist than shown here.</p>}
    </div>
  );
}
