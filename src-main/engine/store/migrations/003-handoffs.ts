/**
 * Schema 3: handoffs. A handoff points at its task (operation handoff.execute) in the shared tasks table, without
 * a foreign key: the task row is deleted one TTL after it ends while the handoff, holding a copy of the
 * result, stays. Idempotency is a unique (owner, key) pair, so a repeated create can only ever find the original.
 */
export const MIGRATION_003_HANDOFFS = `
  CREATE TABLE handoffs (
    id              TEXT PRIMARY KEY,
    task_id         TEXT NOT NULL UNIQUE,
    owner           TEXT NOT NULL,
    target          TEXT,
    assignee        TEXT,
    status          TEXT NOT NULL CHECK (status IN ('open', 'accepted', 'result_ready', 'approved', 'rejected', 'cancelled')),
    summary         TEXT NOT NULL,
    constraints     TEXT,
    artifacts       TEXT NOT NULL DEFAULT '[]',
    result          TEXT,
    input_answers   TEXT NOT NULL DEFAULT '{}',
    decision        TEXT,
    cancellation    TEXT,
    idempotency_key TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX handoffs_idempotency ON handoffs (owner, idempotency_key) WHERE idempotency_key IS NOT NULL;
  CREATE INDEX handoffs_by_created ON handoffs (created_at, id);
  CREATE INDEX handoffs_by_status ON handoffs (status);
`;
