/**
 * Schema 8: what an audited call was about: the id it named (a shell, graph, handoff or task id, or a
 * participant's name), so a person can see "shell_io sh_… ok" beside an agent's terminal. Still never the
 * arguments themselves. Null for calls about nothing in particular and for rows written before.
 */
export const MIGRATION_008_AUDIT_TARGET = `
  ALTER TABLE audit ADD COLUMN target TEXT;
  CREATE INDEX audit_by_participant ON audit (participant, id);
`;
