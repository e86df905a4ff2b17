import { useCallback, useEffect, useRef, useState } from 'react';
import type { HandoffView } from '../../../../src-main/common/handoff-dto';
import { useRoom } from '../../room-context';
import { describeError } from '../../stores/coalesced-read';

export interface HistoryFilter {
  status?: 'approved' | 'rejected' | 'cancelled' | undefined;
  participant?: string | undefined;
  since?: string | undefined;
  text?: string | undefined;
}

const PAGE = 50;
/** The most one read returns (handoff_history's limit). */
const MAX_PAGE = 200;

/**
 * Ended handoffs (handoff_history) for a filter, a page at a time: the first page again whenever the filter
 * changes or a handoff event arrives (a handoff just ended), more on "load more" from the last cursor.
 */
export function useHandoffHistory(filter: HistoryFilter): {
  handoffs: HandoffView[];
  loaded: boolean;
  more: boolean;
  error: string | null;
  loadMore(): void;
} {
  const { client } = useRoom();
  const [handoffs, setHandoffs] = useState<HandoffView[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);
  // how many rows the person has paged in: a live re-read reads as many (up to a page's limit), not one page
  const shown = useRef(PAGE);
  const key = JSON.stringify(filter);
  const args = useCallback(() => {
    const f = JSON.parse(key) as HistoryFilter;
    return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined && v !== '')) as HistoryFilter;
  }, [key]);

  useEffect(() => {
    const mine = ++generation.current;
    shown.current = PAGE;
    const read = () =>
      client.call('handoff_history', { ...args(), limit: Math.min(MAX_PAGE, shown.current) }).then(
        (page) => {
          if (mine !== generation.current) return;
          setHandoffs(page.handoffs);
          setCursor(page.nextCursor);
          setLoaded(true);
          setError(null);
        },
        (e: unknown) => mine === generation.current && setError(describeError(e, 'could not read the history')),
      );
    void read();
    const off = client.on((event) => {
      if (event.kind.startsWith('handoff.')) void read();
    });
    return off;
  }, [client, args]);

  const loadMore = () => {
    if (!cursor) return;
    const mine = generation.current;
    client.call('handoff_history', { ...args(), limit: PAGE, cursor }).then(
      (page) => {
        if (mine !== generation.current) return;
        setHandoffs((before) => {
          const all = [...before, ...page.handoffs.filter((h) => !before.some((b) => b.id === h.id))];
          shown.current = all.length;
          return all;
        });
        setCursor(page.nextCursor);
      },
      (e: unknown) => setError(describeError(e, 'could not read more of the history')),
    );
  };
  return { handoffs, loaded, more: cursor !== null, error, loadMore };
}
