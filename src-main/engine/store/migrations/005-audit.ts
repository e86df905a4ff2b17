/**
 * Schema 5: the audit ring. One row per contract call (every door: MCP tools, the API, the CLI): who, which
 * method, when, the outcome (ok, or the error code) and how long it took. Never the arguments. Bounded like the
 * event ring: each insert drops rows older than the newest N.
 */
export const MIGRATION_005_AUDIT = `
  CREATE TABLE audit (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          TEXT NOT NULL,
    participant TEXT NOT NULL,
    method      TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    duration_ms INTEGER NOT NULL
  ) STRICT;
`;
