import type { EventRule } from '../room/index';

/** Who was added, revoked or rotated is read by those who operate the room. */
export const PARTICIPANT_EVENTS: EventRule = { prefix: 'participant.', visible: '@operate = 1' };
