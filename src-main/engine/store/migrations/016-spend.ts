/**
 * Schema 14: spend and envelopes. `spend` holds the tokens and cost the agent clients report over OpenTelemetry,
 * one row per UTC day, participant, agent run (its terminal id, "" when the room did not start it) and handoff
 * ("" for none), added to as reports arrive; cost in micro-dollars. `envelopes` holds the ceilings set on an agent
 * run, a handoff or a graph, and what each stopped at.
 */
export const MIGRATION_016_SPEND = `
  CREATE TABLE spend (
    day TEXT NOT NULL,
    participant TEXT NOT NULL,
    run TEXT NOT NULL,
    handoff_id TEXT NOT NULL,
    client TEXT NOT NULL,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost_micro_usd INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (day, participant, run, handoff_id)
  ) STRICT;
  CREATE INDEX spend_by_run ON spend (run);
  CREATE INDEX spend_by_handoff ON spend (handoff_id);
  CREATE TABLE envelopes (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL CHECK (scope IN ('agent', 'handoff', 'graph')),
    target TEXT NOT NULL,
    max_wall_ms INTEGER,
    max_idle_ms INTEGER,
    max_tokens INTEGER,
    max_cost_micro_usd INTEGER,
    state TEXT NOT NULL CHECK (state IN ('active', 'stopped', 'ended')),
    stopped_limit TEXT,
    stopped_text TEXT,
    stopped_at TEXT,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    UNIQUE (scope, target)
  ) STRICT;
`;
