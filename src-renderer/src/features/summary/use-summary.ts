import { useCallback, useEffect, useMemo, useState } from 'react';
import type { RoomSummary } from '../../../../src-main/common/methods/summary';
import { useRoom } from '../../room-context';
import { coalesced, describeError } from '../../stores/coalesced-read';

/** The windows the summary looks back over: "while you were away" is most often a night. */
export const SUMMARY_WINDOWS = [
  { id: '1h', label: 'the last hour', ms: 3_600_000 },
  { id: '8h', label: 'the last 8 hours', ms: 8 * 3_600_000 },
  { id: '24h', label: 'the last 24 hours', ms: 24 * 3_600_000 },
  { id: '3d', label: 'the last 3 days', ms: 3 * 24 * 3_600_000 },
  { id: '7d', label: 'the last 7 days', ms: 7 * 24 * 3_600_000 },
] as const;
export type SummaryWindowId = (typeof SUMMARY_WINDOWS)[number]['id'];

/** Hints that change what the summary says: a handoff, graph, agent, shell or workspace moved (not a stage tick). */
const MOVES = /^(handoff|graph\.(ended|submitted)|agent|workspace|shell|envelope|schedule|spend)\b/;

/**
 * The room's summary (room_summary) for a window, read again when something it lists changes: hints are folded
 * so a burst of events costs at most two reads.
 */
export function useSummary(windowId: SummaryWindowId): { summary: RoomSummary | null; error: string | null; reload(): void } {
  const { client } = useRoom();
  const [summary, setSummary] = useState<RoomSummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ms = SUMMARY_WINDOWS.find((w) => w.id === windowId)?.ms ?? 8 * 3_600_000;
  const read = useMemo(
    () =>
      coalesced(() =>
        client.call('room_summary', { since: new Date(Date.now() - ms).toISOString() }).then(
          (s) => {
            setSummary(s);
            setError(null);
          },
          (e: unknown) => setError(describeError(e, 'could not read the summary')),
        ),
      ),
    [client, ms],
  );
  useEffect(() => {
    void read();
    const offEvents = client.on((event) => {
      if (MOVES.test(event.kind)) void read();
    });
    // back after a drop: events missed meanwhile are not replayed, so read the room again
    const offState = client.onState((state) => state === 'open' && void read());
    return () => {
      offEvents();
      offState();
    };
  }, [client, read]);
  const reload = useCallback(() => void read(), [read]);
  return { summary, error, reload };
}
