/**
 * The agents face: agent clients started in the room as shells. The one feature that calls other features,
 * through `Engine.call` (a closure engine.ts hands it), never by import. Owns no table.
 */

export { agentsFeature, type AgentRunRef, type Invoke } from './agents-feature';
/** One look at the process trees of tagged shells (a room node answers it for the runs on its host). */
export { sampleTrees, type TreeSample } from './stall-watch';
/** The agent CLIs' versions, asked once per install (a room node asks them on its host for the runs it starts). */
export { clientVersions } from './client-versions';
