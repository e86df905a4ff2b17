import { forwardRef, useEffect, useState } from 'react';
import type { HandoffView } from '../../../../src-main/common/handoff-dto';
import { EmptyState } from '../../app/EmptyState';
import { useRoom } from '../../room-context';
import { describeError } from '../../stores/coalesced-read';
import { waitingKind } from '../../stores/inbox-store';
import type { DecisionHandle } from './DecisionPanel';
import { HandoffDetail } from './HandoffDetail';

/** A handoff opened by id (from Activity) that may wait on nobody: read with handoff_get, again on its events. */
export const OpenedHandoff = forwardRef<DecisionHandle, { id: string; onChanged(): void }>(function OpenedHandoff({ id, onChanged }, ref) {
  const { client } = useRoom();
  const [handoff, setHandoff] = useState<HandoffView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const read = () =>
      client.call('handoff_get', { handoffId: id }).then(
        (r) => live && (setHandoff(r.handoff), setError(null)),
        (e: unknown) => live && setError(describeError(e, `could not read ${id}`)),
      );
    void read();
    const off = client.on((event) => {
      if (event.kind.startsWith('handoff.') && event.subject === id) void read();
    });
    return () => {
      live = false;
      off();
    };
  }, [client, id]);
  if (error) return <EmptyState title="Handoff" text={error} tone="error" />;
  if (!handoff) return <EmptyState title="Handoff" text="Reading the handoff…" />;
  return <HandoffDetail ref={ref} handoff={handoff} kind={waitingKind(handoff, client.identity?.operator ?? 'operator')} onChanged={onChanged} />;
});
