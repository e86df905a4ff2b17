import type Database from 'better-sqlite3';
import { LIMIT_POLICIES, STALL_POLICIES, type LimitPolicy, type StallPolicy } from '../../common/methods/agents';

/** The room's defaults for its agents' watch, as set (a field never set is null: the runner's default holds). */
export interface WatchDefaults {
  stallMs: number | null;
  onStall: StallPolicy | null;
  onLimit: LimitPolicy | null;
}

interface Row {
  stall_ms: number | null;
  on_stall: string | null;
  on_limit: string | null;
}

/** The agent_watch_defaults row (the agents feature is its one owner and writer). Callers own the transaction. */
export class AgentWatchRepo {
  constructor(private readonly db: Database.Database) {}

  get(): WatchDefaults {
    const row = this.db.prepare('SELECT stall_ms, on_stall, on_limit FROM agent_watch_defaults WHERE id = 1').get() as Row | undefined;
    return {
      stallMs: row?.stall_ms ?? null,
      onStall: (STALL_POLICIES as readonly string[]).includes(row?.on_stall ?? '') ? (row?.on_stall as StallPolicy) : null,
      onLimit: (LIMIT_POLICIES as readonly string[]).includes(row?.on_limit ?? '') ? (row?.on_limit as LimitPolicy) : null,
    };
  }

  set(next: WatchDefaults, at: string, by: string): void {
    this.db
      .prepare(
        `INSERT INTO agent_watch_defaults (id, stall_ms, on_stall, on_limit, set_at, set_by) VALUES (1, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET stall_ms = excluded.stall_ms, on_stall = excluded.on_stall, on_limit = excluded.on_limit, set_at = excluded.set_at, set_by = excluded.set_by`,
      )
      .run(next.stallMs, next.onStall, next.onLimit, at, by);
  }
}
