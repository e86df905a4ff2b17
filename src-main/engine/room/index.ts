/**
 * The room's face: opening a room (the writer with its lock and operator token, or a read-only reader), its
 * files and folders, room_info, and `feature.ts`, what every feature is handed (the room, the bus, `commit`).
 * Owns the `runner` and `meta` tables, and the `events` ring, which only `commit` writes (one event row per
 * change, in the change's transaction). The room holds the participants', events' and tasks' repositories
 * it opens with; their rows are written by their owners (people/, tasks/) through it.
 */

export { type CallContext, type EngineContext, type EventInput, type Feature, type Handlers, makeContext, type MethodHandler, readOnlyRefusal } from './feature';
export { roomFeature } from './room-feature';
export { type EventRule } from './room-history';
export { Room } from './room';
export { findRunningRoom, type RunningRoomEndpoint } from './running-room';
