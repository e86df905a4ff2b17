/**
 * Schema 11: what the room is about to do to a person's repository, written before it touches it (a merge that
 * updates a checkout and moves a branch, or an accept that makes a worktree and its branch), deleted in the
 * same transaction as the step's own rows. A row still here at start is a step a crash cut short: the room
 * finishes it or puts the repository back (workspace-recovery.ts). `paths` (JSON) are the files the merge
 * writes in the checkout; `phase` is how far it got (recorded, checkout, ref); `data` (JSON) what the step
 * needs to finish (who approved, why, the merge's commit).
 */
export const MIGRATION_011_WORKSPACE_INTENTS = `
  CREATE TABLE workspace_intents (
    id         INTEGER PRIMARY KEY,
    handoff_id TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('merge', 'accept')),
    repo       TEXT NOT NULL,
    ref        TEXT NOT NULL,
    worktree   TEXT,
    target     TEXT NOT NULL,
    previous   TEXT,
    paths      TEXT NOT NULL DEFAULT '[]',
    phase      TEXT NOT NULL DEFAULT 'recorded',
    phase_at   TEXT NOT NULL,
    data       TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX workspace_intents_handoff ON workspace_intents (handoff_id);
`;
