import type { EventRule } from '../room/index';

/** The room's hosts (the person's machines) are read about by those who operate the room. */
export const HOST_EVENTS: EventRule = { prefix: 'host.', visible: '@operate = 1' };

export { describeHostEvent } from '../../common/host-event-text';
