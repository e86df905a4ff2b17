/**
 * The handoffs face: handoff actions and queries, views, the TTL sweeper, the workspace steps, and the one
 * resolver of a handoff's workspace folder the engine builds for shells and graphs (`workspace-cwd.ts`).
 * Owns the `handoffs` table.
 */

export { handoffsFeature } from './handoffs-feature';
export { handoffWorkspaces } from './workspace-cwd';
export { HANDOFF_EVENTS } from './handoff-events';
