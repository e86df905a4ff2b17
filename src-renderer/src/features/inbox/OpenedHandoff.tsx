import { forwardRef } from 'react';
import { EmptyState } from '../../app/EmptyState';
import { useRoom } from '../../room-context';
import { waitingKind } from '../../stores/inbox-store';
import type { DecisionHandle } from './DecisionPanel';
import { HandoffDetail } from './HandoffDetail';
import { useHandoff } from '../../shared/handoff/use-handoff';

/** A handoff opened by id (from Activity) that may wait on nobody: read with handoff_get, again on its events. */
export const OpenedHandoff = forwardRef<DecisionHandle, { id: string; onChanged(): void }>(function OpenedHandoff({ id, onChanged }, ref) {
  const { client } = useRoom();
  const { handoff, error } = useHandoff(id);
  if (error) return <EmptyState title="Handoff" text={error} tone="error" />;
  if (!handoff) return <EmptyState title="Handoff" text="Reading the handoff…" />;
  return <HandoffDetail ref={ref} handoff={handoff} kind={waitingKind(handoff, client.identity?.operator ?? 'operator')} onChanged={onChanged} />;
});
