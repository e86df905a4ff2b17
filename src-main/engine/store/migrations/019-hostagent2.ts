/**
 * Schema 19: the agent runs the room started on its hosts, so a room that restarted takes each one up again as
 * the same run (its terminal there is adopted as every shell on a host is, host_shells): the shell's id, the
 * host, its participant and client, its folder there, when and by whom it was started, its handoff, the port of
 * the host's loopback its client reaches the room through (its configuration names it) and the room's port that
 * forward leads to now, its client's version there, and its watch's policies (JSON). A row goes when the run ends.
 * The program and arguments of a `command` run are the person's own and are not kept (as for a local run).
 */
export const MIGRATION_019_HOSTAGENT2 = `
  CREATE TABLE host_agent_runs (
    shell_id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    participant TEXT NOT NULL,
    client TEXT NOT NULL,
    cwd TEXT NOT NULL,
    started_at TEXT NOT NULL,
    started_by TEXT NOT NULL,
    handoff_id TEXT,
    forward_port INTEGER NOT NULL,
    room_port INTEGER NOT NULL,
    version TEXT,
    policy TEXT NOT NULL
  ) STRICT;
`;
