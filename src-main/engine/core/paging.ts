import { RoomError } from '../../common/errors';

/**
 * The one cursor encoding of every paged read (lists, event feeds, stage logs, shell output): base64url of a
 * JSON array `[kind, scope, ...position]`. Opaque to callers; the kind and scope let a cursor from another
 * list, graph, stage or shell be refused with a clear error instead of reading the wrong place.
 */
export type CursorKind = 'graphs' | 'tasks' | 'handoffs' | 'events' | 'history' | 'stage-log' | 'shell' | 'audit' | 'evidence';

/** A position: what the reader needs to resume (numbers and strings only). */
export type CursorPosition = readonly (string | number)[];

export function encodeCursor(kind: CursorKind, scope: string, position: CursorPosition): string {
  return Buffer.from(JSON.stringify([kind, scope, ...position])).toString('base64url');
}

/**
 * The position inside a cursor this kind of read gave out for this scope, or INVALID_INPUT saying what to do.
 * `restart` completes "omit cursor to …" (e.g. "start from the newest graph").
 */
export function decodeCursor(cursor: string, kind: CursorKind, scope: string, restart: string): (string | number)[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.length >= 2 &&
    parsed.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0));
  if (!valid) throw badCursor(`cursor is not one this runner gave out: pass the nextCursor of the previous answer unchanged, or omit cursor to ${restart}`);
  const [k, s, ...position] = parsed as (string | number)[];
  if (k !== kind) throw badCursor(`cursor belongs to another kind of read (${String(k)}), not ${kind}: pass the nextCursor this call returned, or omit cursor to ${restart}`);
  if (s !== scope) throw badCursor(`cursor was given out for another ${scopeNoun(kind)}: pass the nextCursor this call returned for this one, or omit cursor to ${restart}`);
  return position;
}

/** A position that must be a non-negative integer (a byte offset, an event id). */
export function numberAt(position: (string | number)[], index: number, restart: string): number {
  const v = position[index];
  if (typeof v !== 'number') throw badCursor(`cursor is not one this runner gave out: omit cursor to ${restart}`);
  return v;
}

/** A position that must be a string (a timestamp, an id). */
export function stringAt(position: (string | number)[], index: number, restart: string): string {
  const v = position[index];
  if (typeof v !== 'string') throw badCursor(`cursor is not one this runner gave out: omit cursor to ${restart}`);
  return v;
}

function scopeNoun(kind: CursorKind): string {
  return kind === 'shell' ? 'shell' : kind === 'stage-log' ? 'stage' : kind === 'events' ? 'handoff' : 'caller';
}

function badCursor(message: string): RoomError {
  return new RoomError('INVALID_INPUT', message);
}
