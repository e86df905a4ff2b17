import type { EventRule } from '../room/index';

/** Envelopes and their stops are the person's: read by those who operate the room. */
export const SPEND_EVENTS: EventRule = { prefix: 'envelope.', visible: '@operate = 1' };

export { describeSpendEvent } from '../../common/spend-event-text';
