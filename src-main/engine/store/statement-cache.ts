import type Database from 'better-sqlite3';

/** At most this many compiled statements are kept (SQL built with a varying number of placeholders stays bounded). */
const MAX_CACHED_STATEMENTS = 512;

/**
 * Makes `db.prepare(sql)` hand back the statement compiled the first time for the same SQL text, instead of
 * compiling it again on every call (the token lookup and the hot repository queries run on every request).
 * A cached statement is handed back with pluck/expand/raw off, as a fresh one would be. Statements are run
 * synchronously (get/all/run), so one statement is never in use twice at once; `iterate()` over a statement
 * while running the same SQL again would be refused by better-sqlite3 ("busy"), so do not do that.
 */
export function cacheStatements(db: Database.Database): void {
  const compile = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  const prepare = (sql: string): Database.Statement => {
    const cached = cache.get(sql);
    if (cached) {
      // least recently used first: move it to the end
      cache.delete(sql);
      cache.set(sql, cached);
      if (cached.reader) cached.raw(false).expand(false).pluck(false);
      return cached;
    }
    const statement = compile(sql);
    cache.set(sql, statement);
    if (cache.size > MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value as string);
    return statement;
  };
  db.prepare = prepare as typeof db.prepare;
}
