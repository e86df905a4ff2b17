/**
 * Schema 9: a git worktree per handoff (workspaces) and the diff captured when the work was completed
 * (workspace_files, one row per file, read in pages). JSON columns: runs (graph ids), evidence (the summary),
 * merge (what approval merged). Kept after the worktree is gone: the evidence outlives it.
 */
export const MIGRATION_009_WORKSPACES = `
  CREATE TABLE workspaces (
    handoff_id  TEXT PRIMARY KEY,
    repo        TEXT NOT NULL,
    base        TEXT NOT NULL,
    base_branch TEXT,
    base_commit TEXT NOT NULL,
    branch      TEXT NOT NULL,
    path        TEXT,
    state       TEXT NOT NULL CHECK (state IN ('planned', 'ready', 'merged', 'removed', 'kept', 'missing')),
    note        TEXT,
    runs        TEXT NOT NULL DEFAULT '[]',
    continues   TEXT,
    evidence    TEXT,
    merge       TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
  ) STRICT;
  CREATE TABLE workspace_files (
    handoff_id TEXT NOT NULL,
    ord        INTEGER NOT NULL,
    path       TEXT NOT NULL,
    old_path   TEXT,
    status     TEXT NOT NULL,
    additions  INTEGER,
    deletions  INTEGER,
    binary     INTEGER NOT NULL,
    patch      TEXT,
    cut        INTEGER NOT NULL,
    PRIMARY KEY (handoff_id, ord)
  ) STRICT;
`;
