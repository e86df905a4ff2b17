import type Database from 'better-sqlite3';
import type { Caller } from '../../common/dto';
import type { EventPage } from '../../common/handoff-dto';
import { decodeCursor, encodeCursor, numberAt } from '../core/paging';
import { eventOf, type EventRow } from '../store/events';

/**
 * Which of its events a caller may read in the room's history (`workspace_history`): each feature states the
 * rule for its own kinds (its index.ts exports it), the room composes them. A rule is an SQL condition on the
 * event row `e`, with these parameters: `@me` (the caller's name), `@all` (it can approve: sees all handoffs and
 * their tasks), `@canAccept` (it can write), `@operate`. An event of a kind no rule names is everyone's.
 */
export interface EventRule {
  /** The kinds it covers: events whose kind starts with this ("handoff."). */
  prefix: string;
  /** When the caller may read such an event. */
  visible: string;
}

const DEFAULT_PAGE = 50;

function like(prefix: string): string {
  if (!/^[a-z_]+\.$/.test(prefix)) throw new Error(`an event rule's prefix is a word and a dot, not ${JSON.stringify(prefix)}`);
  return `'${prefix}%'`;
}

/** The statement for these rules (built once: the rules are fixed when the engine starts). */
export function historyStatement(rules: readonly EventRule[]): string {
  const covered = rules.map((r) => `(e.kind LIKE ${like(r.prefix)} AND (${r.visible}))`);
  const uncovered = rules.map((r) => `e.kind NOT LIKE ${like(r.prefix)}`).join(' AND ') || '1';
  return `SELECT e.* FROM events e WHERE e.id > @after AND (@all = 1 OR ${[...covered, `(${uncovered})`].join(' OR ')})
    ORDER BY e.id LIMIT @take`;
}

/** One page of the room's events the caller may read, oldest first; the cursor is bound to this caller's history. */
export function historyPage(db: Database.Database, statement: string, caller: Caller, page: { cursor?: string | undefined; limit?: number | undefined }): EventPage {
  const restart = 'start from the oldest event kept';
  const after = page.cursor === undefined ? 0 : numberAt(decodeCursor(page.cursor, 'history', caller.name, restart), 0, restart);
  const limit = page.limit ?? DEFAULT_PAGE;
  const caps = caller.capabilities;
  const params = { me: caller.name, all: caps.includes('approve') ? 1 : 0, canAccept: caps.includes('write') ? 1 : 0, operate: caps.includes('operate') ? 1 : 0, after, take: limit + 1 };
  const rows = db.prepare(statement).all(params) as EventRow[];
  const events = rows.slice(0, limit).map(eventOf);
  const oldest = (db.prepare('SELECT min(id) AS id FROM events').get() as { id: number | null }).id;
  return { events, nextCursor: encodeCursor('history', caller.name, [events.at(-1)?.id ?? after]), more: rows.length > limit, oldestRetainedId: oldest };
}
