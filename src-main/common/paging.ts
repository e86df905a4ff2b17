import { z } from 'zod';

/**
 * The one paging shape of every list and log read. Request: `cursor` (opaque: the `nextCursor` of the
 * previous answer, passed back unchanged) and `limit` (items) or `maxBytes` (bytes). Answer: `nextCursor`.
 * A list answers `nextCursor: null` on its last page; a feed that grows (events, a stage's log, a shell's
 * output) always answers a cursor to read on from, with `more` saying whether more is already there, and
 * takes the cursor "start" to read from its beginning (the oldest byte kept).
 */
export const START_CURSOR = 'start';

export function cursorParam(start: string) {
  return z
    .string()
    .min(1, 'a cursor is the nextCursor of a previous answer; omit it to start from the beginning')
    .max(512, 'a cursor is the nextCursor of a previous answer (at most 512 characters)')
    .describe(`opaque: the nextCursor of the previous answer, passed back unchanged; omit it to ${start}`);
}

export function limitParam(max: number, defaultSize: number, what: string) {
  return z.number().int().min(1).max(max).describe(`${what} per page, default ${defaultSize}, at most ${max}`);
}
