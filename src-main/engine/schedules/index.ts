/**
 * The schedules face: graphs and agent tasks started on a cron schedule in a stated time zone, and the record of
 * every due time (ran, skipped, missed, failed). It starts what it runs through `Engine.call` (a closure
 * engine.ts hands it), never by import. Owns the `schedules` and `schedule_runs` tables.
 */

export { schedulesFeature } from './schedules-feature';
export { SCHEDULE_EVENTS, describeScheduleEvent } from './schedule-events';
