/**
 * Schema 10: the folders the person lets an agent's shells and stages write besides their working folder,
 * temp folders and caches (`ce participant folders`, the Agents screen). A JSON array of absolute paths;
 * empty for everyone at first.
 */
export const MIGRATION_010_WRITABLE_FOLDERS = `
  ALTER TABLE participants ADD COLUMN writable_folders TEXT NOT NULL DEFAULT '[]';
`;
