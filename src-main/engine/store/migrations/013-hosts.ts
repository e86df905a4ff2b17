/**
 * Schema 13: the room's hosts — aliases of the person's SSH configuration that work may be placed on (`ce host
 * add`, the Agents screen), whether agents may use each, and its last check (JSON, as host_check answered).
 * Nothing of the SSH configuration is copied: the alias is all the room keeps.
 */
export const MIGRATION_013_HOSTS = `
  CREATE TABLE hosts (
    alias TEXT PRIMARY KEY,
    agents INTEGER NOT NULL DEFAULT 1,
    added_at TEXT NOT NULL,
    added_by TEXT NOT NULL,
    last_check TEXT
  ) STRICT;
`;
