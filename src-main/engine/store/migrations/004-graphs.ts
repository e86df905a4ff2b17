/**
 * Schema 4: task graphs. A graph run IS a task row (operation `graph.run`, kept: ttl_ms NULL); these tables
 * hold its stages and where their logs are. `pid`/`pid_start`/`proc_tag` of a running attempt let the next
 * runner find and end an orphaned tree after a crash. Spooled logs are indexed in graph_artifacts.
 */
export const MIGRATION_004_GRAPHS = `
  CREATE TABLE graphs (
    id            TEXT PRIMARY KEY REFERENCES tasks (id),
    name          TEXT,
    owner         TEXT NOT NULL,
    max_parallel  INTEGER NOT NULL,
    on_failure    TEXT NOT NULL CHECK (on_failure IN ('skip-dependents', 'cancel-all')),
    state         TEXT NOT NULL CHECK (state IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
    created_at    TEXT NOT NULL,
    started_at    TEXT,
    ended_at      TEXT,
    log_dir       TEXT NOT NULL,
    spooled_at    TEXT
  ) STRICT;
  CREATE INDEX graphs_by_created ON graphs (created_at, id);
  CREATE INDEX graphs_by_state ON graphs (state);

  CREATE TABLE graph_stages (
    graph_id     TEXT NOT NULL REFERENCES graphs (id),
    stage_id     TEXT NOT NULL,
    ord          INTEGER NOT NULL,
    spec         TEXT NOT NULL,
    depends_on   TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('pending', 'running', 'completed', 'failed', 'cancelled', 'skipped')),
    ready        INTEGER NOT NULL DEFAULT 0,
    attempt      INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    error_code   TEXT,
    exit_code    INTEGER,
    signal       TEXT,
    message      TEXT,
    pid          INTEGER,
    pid_start    TEXT,
    proc_tag     TEXT,
    started_at   TEXT,
    ended_at     TEXT,
    log_path     TEXT NOT NULL,
    PRIMARY KEY (graph_id, stage_id)
  ) STRICT;
  CREATE INDEX graph_stages_running ON graph_stages (state);

  CREATE TABLE graph_artifacts (
    graph_id      TEXT NOT NULL REFERENCES graphs (id),
    stage_id      TEXT NOT NULL,
    path          TEXT NOT NULL,
    raw_bytes     INTEGER NOT NULL,
    stored_bytes  INTEGER NOT NULL,
    sha256        TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (graph_id, stage_id)
  ) STRICT;
`;
