import type { EventRule } from '../room/index';
import type { ScheduleRecord } from '../store/schedules';

/** A schedule's events are read by its owner and by those who operate the room. */
export const SCHEDULE_EVENTS: EventRule = { prefix: 'schedule.', visible: "(@operate = 1 OR json_extract(e.data, '$.owner') = @me)" };

/** What every schedule event carries: which schedule, whose, and the zone its times are read in. */
export function scheduleEventData(s: ScheduleRecord): { scheduleId: string; name: string; owner: string; timeZone: string; kind: 'graph' | 'agent'; catchUp: 'once' | 'skip' } {
  return { scheduleId: s.id, name: s.name, owner: s.owner, timeZone: s.timeZone, kind: s.kind, catchUp: s.catchUp };
}

export { describeScheduleEvent } from '../../common/schedule-event-text';
