/**
 * Schema 2: the one task store. Every execution record with MCP task statuses lives here, whatever made it
 * (a handoff's execution, a graph run) and whichever door created it; features keep their own tables and
 * point at a task id.
 */
export const MIGRATION_002_TASKS = `
  CREATE TABLE tasks (
    id               TEXT PRIMARY KEY,
    operation        TEXT NOT NULL,
    owner            TEXT NOT NULL,
    assignee         TEXT,
    status           TEXT NOT NULL CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
    status_message   TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    ttl_ms           INTEGER,
    poll_interval_ms INTEGER NOT NULL,
    correlation_id   TEXT NOT NULL,
    schema_version   INTEGER NOT NULL DEFAULT 1,
    result           TEXT,
    error            TEXT,
    input_requests   TEXT
  ) STRICT;
  CREATE INDEX tasks_by_owner ON tasks (owner, created_at);
  CREATE INDEX tasks_by_status ON tasks (status);
`;
