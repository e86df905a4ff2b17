/**
 * Schema 6: indexes for the two sweeps that run at start and then on a timer, so neither reads a room's whole
 * history (a day of handoffs, thousands of ended graphs) to find the few rows it acts on.
 *
 * `tasks.due_at` is when the TTL sweep must next judge a task: one TTL after creation while it runs, one TTL
 * after its last update once it ended (epoch ms, computed by SQLite from the row itself, so no writer can
 * forget it). The sweep reads the due rows through the partial index and still judges each with the clock.
 * Ended graphs whose logs are still loose files are found through a partial index on the few unspooled ones.
 */
export const MIGRATION_006_SWEEP_INDEXES = `
  ALTER TABLE tasks ADD COLUMN due_at INTEGER GENERATED ALWAYS AS (
    CASE WHEN ttl_ms IS NULL THEN NULL
    ELSE CAST(round((julianday(CASE WHEN status IN ('completed', 'failed', 'cancelled') THEN updated_at ELSE created_at END)
                     - 2440587.5) * 86400000.0) AS INTEGER) + ttl_ms
    END
  ) VIRTUAL;
  CREATE INDEX tasks_due ON tasks (due_at) WHERE due_at IS NOT NULL;
  CREATE INDEX graphs_unspooled ON graphs (ended_at) WHERE spooled_at IS NULL;
`;
