import type { HandoffView } from './handoff-dto';

/** How a handoff ended, by whom, when and why: its decision, or its cancellation (by nobody: it expired, the room ended it). */
export function endingOf(h: HandoffView): { verb: string; by: string; at: string; why: string | null } {
  if (h.decision) return { verb: h.decision.approved ? 'approved' : 'rejected', by: h.decision.by, at: h.decision.at, why: h.decision.reason };
  if (h.cancellation) {
    const expired = h.cancellation.by === null;
    return { verb: expired ? 'expired' : 'cancelled', by: h.cancellation.by ?? 'the room', at: h.cancellation.at, why: h.cancellation.reason };
  }
  return { verb: h.status, by: '—', at: h.updatedAt, why: null };
}
