/**
 * The graphs face: task graphs (the feature, its views, the tick that runs stages, their logs and archives).
 * Owns the `graphs`, `graph_stages` and `graph_artifacts` tables.
 */

export { graphRunReads } from './graph-runs';
export { graphsFeature } from './graphs-feature';
export { GRAPH_EVENTS } from './graph-events';
export { nodeGraphReads, type NodeGraphReads } from './node-reads';
