/**
 * Schema 17: a handoff's workspace on one of the room's hosts. `host` is the SSH alias of the host its worktree
 * lives on (null: this machine), `host_repo` the host's own clone of the repository there, as the handoff named
 * it. `repo` stays the person's repository on this machine: what the review reads (the work is fetched into
 * it) and what approval merges into.
 */
export const MIGRATION_017_HOSTWORK = `
  ALTER TABLE workspaces ADD COLUMN host TEXT;
  ALTER TABLE workspaces ADD COLUMN host_repo TEXT;
`;
