import type { EventRule } from '../room/index';
import { VISIBLE_TO } from '../store/handoffs';

/** A handoff's events are read by whoever may see the handoff. */
export const HANDOFF_EVENTS: EventRule = { prefix: 'handoff.', visible: `EXISTS (SELECT 1 FROM handoffs h WHERE h.id = e.subject AND ${VISIBLE_TO})` };
