import { z } from 'zod';
import type { HandoffView } from '../handoff-dto';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import { cursorParam, limitParam } from '../paging';
import { participantName } from './participants';

/** History: the ended handoffs with who decided or cancelled each and why (the Inbox holds the live ones). */
export const ENDED_STATUSES = ['approved', 'rejected', 'cancelled'] as const;
/** A moment in ISO 8601, as `since` and `until` take it (the engine compares it in UTC with the times it stores). */
export const isIsoTime = (t: string): boolean => /^\d{4}-\d{2}-\d{2}/.test(t) && !Number.isNaN(Date.parse(t));
const endedAt = lazily(() => z.string().max(40, 'a time is ISO 8601, e.g. 2026-01-31T09:00:00Z').refine(isIsoTime, 'a time is ISO 8601, e.g. 2026-01-31T09:00:00Z'));

export const HANDOFF_HISTORY_METHODS = {
  handoff_history: {
    description:
      'Ended handoffs you have a part in (all of them, if you can approve): approved, rejected and cancelled, the most recently ended first, ' +
      'each with its decision or cancellation (who, when, the reason or note). Narrow by status, participant (owned, addressed to, did, ' +
      'decided or cancelled it), the time it ended (since, until) and text in its summary. Paged: pass nextCursor as cursor (null: the last page).',
    capability: 'read',
    input: lazily(() => z
      .object({
        status: z.enum(ENDED_STATUSES).optional().describe('only handoffs that ended this way'),
        participant: participantName().optional().describe('only handoffs this participant owned, was addressed, did, decided or cancelled'),
        since: endedAt().optional().describe('only handoffs that ended at or after this time (ISO 8601, e.g. 2026-01-31T09:00:00Z)'),
        until: endedAt().optional().describe('only handoffs that ended before this time (ISO 8601)'),
        text: z.string().min(1).max(200, 'text is at most 200 characters').optional().describe('only handoffs whose summary contains this (any case)'),
        cursor: cursorParam('start from the most recently ended handoff').optional(),
        limit: limitParam(200, 50, 'handoffs').optional(),
      })
      .strict()),
    mcpTool: true,
    readOnly: true,
  },
} satisfies Record<string, MethodSpec>;

export interface HandoffHistoryOutputs {
  handoff_history: { handoffs: HandoffView[]; nextCursor: string | null };
}
