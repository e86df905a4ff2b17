/**
 * Schema 14: the room's defaults for the watch of the agents it starts (agent_watch_defaults): how long quiet
 * while working reads stalled, and what the room does on a stall and at a usage limit. One row; absent: the
 * runner's defaults (10 minutes, tell, ask).
 */
export const MIGRATION_015_AGENT_WATCH = `
  CREATE TABLE agent_watch_defaults (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    stall_ms INTEGER,
    on_stall TEXT,
    on_limit TEXT,
    set_at TEXT NOT NULL,
    set_by TEXT NOT NULL
  ) STRICT;
`;
