/**
 * Schema 14: schedules — a graph or an agent task started on a cron pattern in a stated time zone — and what
 * became of each due time (schedule_runs). `decided_through` is the last due time decided: it moves in the same
 * transaction that records the decision, and (schedule_id, due_at) is the key, so a due time is decided once,
 * whatever stops the room in between.
 */
export const MIGRATION_014_SCHEDULES = `
  CREATE TABLE schedules (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    cron TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('graph', 'agent')),
    spec TEXT NOT NULL,
    catch_up TEXT NOT NULL CHECK (catch_up IN ('once', 'skip')),
    owner TEXT NOT NULL,
    created_at TEXT NOT NULL,
    decided_through TEXT NOT NULL,
    removed_at TEXT
  ) STRICT;
  CREATE TABLE schedule_runs (
    schedule_id TEXT NOT NULL REFERENCES schedules(id),
    due_at TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('starting', 'ran', 'skipped', 'missed', 'failed')),
    late INTEGER NOT NULL DEFAULT 0,
    decided_at TEXT NOT NULL,
    graph_id TEXT,
    handoff_id TEXT,
    shell_id TEXT,
    reason TEXT,
    PRIMARY KEY (schedule_id, due_at)
  ) STRICT;
`;
