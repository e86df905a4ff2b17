/** Schema 1: the room itself, participants, the runner's holder record, the event ring. */
export const MIGRATION_001_ROOM = `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT;

  CREATE TABLE participants (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,
    role         TEXT NOT NULL CHECK (role IN ('operator', 'agent')),
    capabilities TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    revoked_at   TEXT
  ) STRICT;

  CREATE TABLE runner (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    pid        INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    endpoint   TEXT,
    token_file TEXT
  ) STRICT;

  CREATE TABLE events (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at      TEXT NOT NULL,
    kind    TEXT NOT NULL,
    actor   TEXT,
    subject TEXT,
    data    TEXT NOT NULL DEFAULT '{}'
  ) STRICT;
`;
