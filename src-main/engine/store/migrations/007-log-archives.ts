/**
 * Schema 7: an ended graph's logs are spooled into ONE archive, a gzip member per stage, instead of a file per
 * stage. Creating a file costs about what a commit costs on some disks, and each was fsynced on its own: closing
 * a room after a 10,000-stage graph took seconds, and the retention pass held the room's event loop as long. `byte_offset` is where a stage's member starts in the
 * archive at `path` (its length is `stored_bytes`); NULL is a file of its own, as schema 6 spooled them.
 */
export const MIGRATION_007_LOG_ARCHIVES = `
  ALTER TABLE graph_artifacts ADD COLUMN byte_offset INTEGER CHECK (byte_offset IS NULL OR byte_offset >= 0);
`;
