/**
 * Schema 12: indexes for `handoff_list`'s filter shapes, so a page reads about a page of rows however many
 * handoffs a room has made (the one table that grows for ever). Each shape has its own statement
 * (store/handoffs.ts): a status filter walks (status, created_at, id) newest first; a participant who may not
 * see everything reads its own part as one branch per way a handoff is theirs (owner, addressee, assignee),
 * each walking (who, created_at, id), or (who, status, created_at, id) under a status filter, a page at most
 * each. `handoff_history` walks the ended handoffs by when they ended, (updated_at, id), or (status, updated_at,
 * id) under a status filter: partial indexes of the ended rows only. The plain status index is dropped:
 * (status, created_at, id) answers every lookup it did.
 */
export const MIGRATION_012_HANDOFF_LIST_INDEXES = `
  DROP INDEX handoffs_by_status;
  CREATE INDEX handoffs_by_status_created ON handoffs (status, created_at, id);
  CREATE INDEX handoffs_by_owner ON handoffs (owner, created_at, id);
  CREATE INDEX handoffs_by_owner_status ON handoffs (owner, status, created_at, id);
  CREATE INDEX handoffs_by_target ON handoffs (target, created_at, id);
  CREATE INDEX handoffs_by_target_status ON handoffs (target, status, created_at, id);
  CREATE INDEX handoffs_by_assignee ON handoffs (assignee, created_at, id) WHERE assignee IS NOT NULL;
  CREATE INDEX handoffs_by_assignee_status ON handoffs (assignee, status, created_at, id) WHERE assignee IS NOT NULL;
  CREATE INDEX handoffs_ended ON handoffs (updated_at, id) WHERE status IN ('approved', 'rejected', 'cancelled');
  CREATE INDEX handoffs_ended_by_status ON handoffs (status, updated_at, id) WHERE status IN ('approved', 'rejected', 'cancelled');
`;
