import type Database from 'better-sqlite3';
import type { EnvelopeLimit, EnvelopeScope, EnvelopeView, SpendRow, SpendUsage } from '../../common/methods/spend';

interface SpendDbRow {
  day: string;
  participant: string;
  run: string;
  handoff_id: string;
  client: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_micro_usd: number;
  updated_at: string;
}

interface EnvelopeRow {
  id: string;
  scope: EnvelopeScope;
  target: string;
  max_wall_ms: number | null;
  max_idle_ms: number | null;
  max_tokens: number | null;
  max_cost_micro_usd: number | null;
  state: EnvelopeView['state'];
  stopped_limit: EnvelopeLimit | null;
  stopped_text: string | null;
  stopped_at: string | null;
  created_at: string;
  created_by: string;
}

const USAGE_SUMS = 'COALESCE(SUM(input_tokens), 0) AS i, COALESCE(SUM(output_tokens), 0) AS o, COALESCE(SUM(cache_read_tokens), 0) AS cr, COALESCE(SUM(cache_write_tokens), 0) AS cw, COALESCE(SUM(cost_micro_usd), 0) AS c';
type Sums = { i: number; o: number; cr: number; cw: number; c: number };
const usageOf = (s: Sums): SpendUsage => ({ inputTokens: s.i, outputTokens: s.o, cacheReadTokens: s.cr, cacheWriteTokens: s.cw, costMicroUsd: s.c });

function toRow(r: SpendDbRow): SpendRow {
  return {
    day: r.day,
    participant: r.participant,
    run: r.run,
    handoffId: r.handoff_id === '' ? null : r.handoff_id,
    client: r.client,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    cacheReadTokens: r.cache_read_tokens,
    cacheWriteTokens: r.cache_write_tokens,
    costMicroUsd: r.cost_micro_usd,
    updatedAt: r.updated_at,
  };
}

function toEnvelope(r: EnvelopeRow): EnvelopeView {
  return {
    id: r.id,
    scope: r.scope,
    target: r.target,
    maxWallMs: r.max_wall_ms,
    maxIdleMs: r.max_idle_ms,
    maxTokens: r.max_tokens,
    maxCostMicroUsd: r.max_cost_micro_usd,
    state: r.state,
    stopped: r.stopped_limit && r.stopped_at ? { limit: r.stopped_limit, text: r.stopped_text ?? '', at: r.stopped_at } : null,
    createdAt: r.created_at,
    createdBy: r.created_by,
  };
}

/** Spend and envelope rows (the spend feature is their one owner and writer). Callers own the transaction. */
export class SpendRepo {
  constructor(private readonly db: Database.Database) {}

  /** Adds usage to the row of its day, participant, run and handoff. */
  add(key: { day: string; participant: string; run: string; handoffId: string | null; client: string }, usage: SpendUsage, at: string): void {
    this.db
      .prepare(
        `INSERT INTO spend (day, participant, run, handoff_id, client, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_micro_usd, updated_at)
         VALUES (@day, @participant, @run, @handoff, @client, @i, @o, @cr, @cw, @c, @at)
         ON CONFLICT (day, participant, run, handoff_id) DO UPDATE SET
           input_tokens = input_tokens + @i, output_tokens = output_tokens + @o, cache_read_tokens = cache_read_tokens + @cr,
           cache_write_tokens = cache_write_tokens + @cw, cost_micro_usd = cost_micro_usd + @c, client = @client, updated_at = @at`,
      )
      .run({ ...key, handoff: key.handoffId ?? '', i: usage.inputTokens, o: usage.outputTokens, cr: usage.cacheReadTokens, cw: usage.cacheWriteTokens, c: usage.costMicroUsd, at });
  }

  rows(fromDay: string, filter: { participant?: string | undefined; handoffId?: string | undefined }, limit = 2000): SpendRow[] {
    return (
      this.db
        .prepare(
          `SELECT * FROM spend WHERE day >= @from AND (@p IS NULL OR participant = @p) AND (@h IS NULL OR handoff_id = @h)
           ORDER BY day DESC, updated_at DESC LIMIT @limit`,
        )
        .all({ from: fromDay, p: filter.participant ?? null, h: filter.handoffId ?? null, limit }) as SpendDbRow[]
    ).map(toRow);
  }

  totals(fromDay: string, filter: { participant?: string | undefined; handoffId?: string | undefined }): ({ participant: string } & SpendUsage)[] {
    const rows = this.db
      .prepare(
        `SELECT participant, ${USAGE_SUMS} FROM spend WHERE day >= @from AND (@p IS NULL OR participant = @p) AND (@h IS NULL OR handoff_id = @h)
         GROUP BY participant ORDER BY c DESC, participant`,
      )
      .all({ from: fromDay, p: filter.participant ?? null, h: filter.handoffId ?? null }) as (Sums & { participant: string })[];
    return rows.map((r) => ({ participant: r.participant, ...usageOf(r) }));
  }

  /** Everything an agent run (its terminal id) spent. */
  ofRun(run: string): SpendUsage {
    return usageOf(this.db.prepare(`SELECT ${USAGE_SUMS} FROM spend WHERE run = ?`).get(run) as Sums);
  }

  /** Everything spent on a handoff, by every run on it. */
  ofHandoff(handoffId: string): SpendUsage {
    return usageOf(this.db.prepare(`SELECT ${USAGE_SUMS} FROM spend WHERE handoff_id = ?`).get(handoffId) as Sums);
  }

  envelopes(): EnvelopeView[] {
    return (this.db.prepare('SELECT * FROM envelopes ORDER BY created_at DESC LIMIT 500').all() as EnvelopeRow[]).map(toEnvelope);
  }

  activeEnvelopes(): EnvelopeView[] {
    return (this.db.prepare("SELECT * FROM envelopes WHERE state = 'active' ORDER BY created_at").all() as EnvelopeRow[]).map(toEnvelope);
  }

  envelope(scope: EnvelopeScope, target: string): EnvelopeView | null {
    const row = this.db.prepare('SELECT * FROM envelopes WHERE scope = ? AND target = ?').get(scope, target) as EnvelopeRow | undefined;
    return row ? toEnvelope(row) : null;
  }

  /** Sets (or replaces) the envelope on a target, active again. */
  putEnvelope(e: { id: string; scope: EnvelopeScope; target: string; maxWallMs: number | null; maxIdleMs: number | null; maxTokens: number | null; maxCostMicroUsd: number | null }, at: string, by: string): void {
    this.db
      .prepare(
        `INSERT INTO envelopes (id, scope, target, max_wall_ms, max_idle_ms, max_tokens, max_cost_micro_usd, state, created_at, created_by)
         VALUES (@id, @scope, @target, @wall, @idle, @tokens, @cost, 'active', @at, @by)
         ON CONFLICT (scope, target) DO UPDATE SET max_wall_ms = @wall, max_idle_ms = @idle, max_tokens = @tokens, max_cost_micro_usd = @cost,
           state = 'active', stopped_limit = NULL, stopped_text = NULL, stopped_at = NULL, created_at = @at, created_by = @by`,
      )
      .run({ id: e.id, scope: e.scope, target: e.target, wall: e.maxWallMs, idle: e.maxIdleMs, tokens: e.maxTokens, cost: e.maxCostMicroUsd, at, by });
  }

  removeEnvelope(scope: EnvelopeScope, target: string): boolean {
    return this.db.prepare('DELETE FROM envelopes WHERE scope = ? AND target = ?').run(scope, target).changes > 0;
  }

  /** Marks an active envelope stopped (answers false when it was no longer active: stopped once, never twice). */
  markStopped(id: string, limit: EnvelopeLimit, text: string, at: string): boolean {
    return this.db.prepare("UPDATE envelopes SET state = 'stopped', stopped_limit = ?, stopped_text = ?, stopped_at = ? WHERE id = ? AND state = 'active'").run(limit, text, at, id).changes > 0;
  }

  /** Its target ended by itself (the run exited, the graph finished): nothing left to bound. */
  markEnded(id: string): void {
    this.db.prepare("UPDATE envelopes SET state = 'ended' WHERE id = ? AND state = 'active'").run(id);
  }
}
