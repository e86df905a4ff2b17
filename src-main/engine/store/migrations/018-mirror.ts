/**
 * Schema 17: the shells the room placed on its hosts (`shell_open` with `host`), so a room that restarted adopts
 * them again from the host's node, which kept them running: the node's shell id, the host, who opened it here
 * (its owner in this room), the participant of the node's room it runs as (null: the node's operator), and the
 * shell as the node described it when it opened (JSON: the copy here is built from it). A row goes with
 * shell_close, or when the node no longer has the shell.
 */
export const MIGRATION_018_MIRROR = `
  CREATE TABLE host_shells (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    owner TEXT NOT NULL,
    node_as TEXT,
    view TEXT NOT NULL,
    opened_at TEXT NOT NULL
  ) STRICT;
`;
