import type Database from 'better-sqlite3';
import type { FailurePolicy, StageSpec } from '../../common/graphs/graph-spec';
import { nextStageState, type GraphState, type StageErrorCode, type StageState } from '../../common/graphs/stage-machine';

/** What of a stage's spec is kept to run it (the id and dependsOn have their own columns). */
export type StoredStageSpec = Omit<StageSpec, 'id' | 'dependsOn'>;

export interface GraphRecord {
  id: string;
  name: string | null;
  owner: string;
  maxParallel: number;
  onFailure: FailurePolicy;
  state: GraphState;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  logDir: string;
  spooledAt: string | null;
}

export interface StageRecord {
  graphId: string;
  stageId: string;
  ord: number;
  spec: StoredStageSpec;
  dependsOn: string[];
  state: StageState;
  ready: boolean;
  attempt: number;
  maxAttempts: number;
  errorCode: StageErrorCode | null;
  exitCode: number | null;
  signal: string | null;
  message: string | null;
  pid: number | null;
  pidStart: string | null;
  procTag: string | null;
  startedAt: string | null;
  endedAt: string | null;
  logPath: string;
}

export interface ArtifactRecord {
  graphId: string;
  stageId: string;
  path: string;
  rawBytes: number;
  storedBytes: number;
  /** Where its gzip member starts in the graph's archive at `path`; null: `path` is a file of its own (schema 6). */
  byteOffset: number | null;
  sha256: string;
  createdAt: string;
}

interface GraphRow {
  id: string;
  name: string | null;
  owner: string;
  max_parallel: number;
  on_failure: FailurePolicy;
  state: GraphState;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  log_dir: string;
  spooled_at: string | null;
}

interface StageRow {
  graph_id: string;
  stage_id: string;
  ord: number;
  spec: string;
  depends_on: string;
  state: StageState;
  ready: number;
  attempt: number;
  max_attempts: number;
  error_code: StageErrorCode | null;
  exit_code: number | null;
  signal: string | null;
  message: string | null;
  pid: number | null;
  pid_start: string | null;
  proc_tag: string | null;
  started_at: string | null;
  ended_at: string | null;
  log_path: string;
}

const toGraph = (r: GraphRow): GraphRecord => ({
  id: r.id,
  name: r.name,
  owner: r.owner,
  maxParallel: r.max_parallel,
  onFailure: r.on_failure,
  state: r.state,
  createdAt: r.created_at,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  logDir: r.log_dir,
  spooledAt: r.spooled_at,
});

const toStage = (r: StageRow): StageRecord => ({
  graphId: r.graph_id,
  stageId: r.stage_id,
  ord: r.ord,
  spec: JSON.parse(r.spec) as StoredStageSpec,
  dependsOn: JSON.parse(r.depends_on) as string[],
  state: r.state,
  ready: r.ready === 1,
  attempt: r.attempt,
  maxAttempts: r.max_attempts,
  errorCode: r.error_code,
  exitCode: r.exit_code,
  signal: r.signal,
  message: r.message,
  pid: r.pid,
  pidStart: r.pid_start,
  procTag: r.proc_tag,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  logPath: r.log_path,
});

export type StageChange = Partial<
  Pick<StageRecord, 'state' | 'ready' | 'attempt' | 'errorCode' | 'exitCode' | 'signal' | 'message' | 'pid' | 'pidStart' | 'procTag' | 'startedAt' | 'endedAt'>
>;

const STAGE_COLUMNS: Record<keyof StageChange, string> = {
  state: 'state',
  ready: 'ready',
  attempt: 'attempt',
  errorCode: 'error_code',
  exitCode: 'exit_code',
  signal: 'signal',
  message: 'message',
  pid: 'pid',
  pidStart: 'pid_start',
  procTag: 'proc_tag',
  startedAt: 'started_at',
  endedAt: 'ended_at',
};

/** Graph, stage and artifact rows. Callers own the transaction; works on a read-only handle for reads. */
export class GraphRepo {
  constructor(private readonly db: Database.Database) {}

  insertGraph(g: Omit<GraphRecord, 'startedAt' | 'endedAt' | 'spooledAt'>): void {
    this.db
      .prepare(
        `INSERT INTO graphs (id, name, owner, max_parallel, on_failure, state, created_at, log_dir) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(g.id, g.name, g.owner, g.maxParallel, g.onFailure, g.state, g.createdAt, g.logDir);
  }

  insertStage(s: Pick<StageRecord, 'graphId' | 'stageId' | 'ord' | 'spec' | 'dependsOn' | 'maxAttempts' | 'logPath'>): void {
    this.db
      .prepare(
        `INSERT INTO graph_stages (graph_id, stage_id, ord, spec, depends_on, state, max_attempts, log_path) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`,
      )
      .run(s.graphId, s.stageId, s.ord, JSON.stringify(s.spec), JSON.stringify(s.dependsOn), s.maxAttempts, s.logPath);
  }

  graph(id: string): GraphRecord | null {
    const row = this.db.prepare('SELECT * FROM graphs WHERE id = ?').get(id) as GraphRow | undefined;
    return row ? toGraph(row) : null;
  }

  stages(graphId: string): StageRecord[] {
    return (this.db.prepare('SELECT * FROM graph_stages WHERE graph_id = ? ORDER BY ord').all(graphId) as StageRow[]).map(toStage);
  }

  /**
   * Compare-and-set on (state, attempt): a late exit of an old attempt, or a change racing a cancel, finds the
   * row moved on and changes nothing. Returns whether the row changed. Every state write passes the stage
   * machine (`nextStageState`, from the state it expects): an illegal move is a CONFLICT and writes nothing.
   */
  updateStage(graphId: string, stageId: string, expect: { state: StageState; attempt?: number }, change: StageChange): boolean {
    if (change.state !== undefined) nextStageState(expect.state, change.state);
    const sets: string[] = [];
    const params: Record<string, unknown> = { graphId, stageId, expectState: expect.state };
    for (const [key, value] of Object.entries(change) as [keyof StageChange, unknown][]) {
      if (value === undefined) continue;
      sets.push(`${STAGE_COLUMNS[key]} = @${key}`);
      params[key] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
    }
    if (sets.length === 0) return false;
    let where = 'graph_id = @graphId AND stage_id = @stageId AND state = @expectState';
    if (expect.attempt !== undefined) {
      where += ' AND attempt = @expectAttempt';
      params.expectAttempt = expect.attempt;
    }
    return this.db.prepare(`UPDATE graph_stages SET ${sets.join(', ')} WHERE ${where}`).run(params).changes === 1;
  }

  setGraph(id: string, change: Partial<Pick<GraphRecord, 'state' | 'startedAt' | 'endedAt' | 'spooledAt'>>): void {
    const cols: Record<string, string> = { state: 'state', startedAt: 'started_at', endedAt: 'ended_at', spooledAt: 'spooled_at' };
    const sets: string[] = [];
    const params: Record<string, unknown> = { id };
    for (const [key, value] of Object.entries(change)) {
      if (value === undefined) continue;
      sets.push(`${cols[key]} = @${key}`);
      params[key] = value;
    }
    if (sets.length > 0) this.db.prepare(`UPDATE graphs SET ${sets.join(', ')} WHERE id = @id`).run(params);
  }

  /** The newest graph of this name, if any (a room node finds the run of a stage placed on it by its name). */
  named(name: string): GraphRecord | null {
    const row = this.db.prepare('SELECT * FROM graphs WHERE name = ? ORDER BY created_at DESC LIMIT 1').get(name) as GraphRow | undefined;
    return row ? toGraph(row) : null;
  }

  /** Graphs that have not ended (a previous runner may have left them so). */
  unfinished(): GraphRecord[] {
    return (this.db.prepare("SELECT * FROM graphs WHERE state IN ('pending', 'running') ORDER BY created_at").all() as GraphRow[]).map(toGraph);
  }

  countUnfinishedOwnedBy(owner: string): number {
    return (this.db.prepare("SELECT count(*) AS n FROM graphs WHERE state IN ('pending', 'running') AND owner = ?").get(owner) as { n: number }).n;
  }

  countUnfinished(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM graphs WHERE state IN ('pending', 'running')").get() as { n: number }).n;
  }

  /** Ended graphs whose logs are still loose files, ended before `endedBefore` (ISO) when given. */
  toSpool(endedBefore?: string): GraphRecord[] {
    const rows = endedBefore
      ? this.db.prepare('SELECT * FROM graphs WHERE ended_at IS NOT NULL AND spooled_at IS NULL AND ended_at <= ?').all(endedBefore)
      : this.db.prepare('SELECT * FROM graphs WHERE ended_at IS NOT NULL AND spooled_at IS NULL').all();
    return (rows as GraphRow[]).map(toGraph);
  }

  /** Newest first, paged by (created_at, id); `owner` null lists every graph. */
  list(owner: string | null, limit: number, before?: { createdAt: string; id: string }): GraphRecord[] {
    const clauses: string[] = [];
    const params: Record<string, unknown> = { limit };
    if (owner !== null) {
      clauses.push('owner = @owner');
      params.owner = owner;
    }
    if (before) {
      clauses.push('(created_at, id) < (@createdAt, @id)');
      Object.assign(params, before);
    }
    const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
    return (this.db.prepare(`SELECT * FROM graphs ${where} ORDER BY created_at DESC, id DESC LIMIT @limit`).all(params) as GraphRow[]).map(toGraph);
  }

  insertArtifact(a: ArtifactRecord): void {
    this.db
      .prepare(
        `INSERT INTO graph_artifacts (graph_id, stage_id, path, raw_bytes, stored_bytes, byte_offset, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (graph_id, stage_id) DO UPDATE SET path = excluded.path, raw_bytes = excluded.raw_bytes,
           stored_bytes = excluded.stored_bytes, byte_offset = excluded.byte_offset, sha256 = excluded.sha256, created_at = excluded.created_at`,
      )
      .run(a.graphId, a.stageId, a.path, a.rawBytes, a.storedBytes, a.byteOffset, a.sha256, a.createdAt);
  }

  artifact(graphId: string, stageId: string): ArtifactRecord | null {
    const r = this.db.prepare('SELECT * FROM graph_artifacts WHERE graph_id = ? AND stage_id = ?').get(graphId, stageId) as
      | { graph_id: string; stage_id: string; path: string; raw_bytes: number; stored_bytes: number; byte_offset: number | null; sha256: string; created_at: string }
      | undefined;
    return r
      ? { graphId: r.graph_id, stageId: r.stage_id, path: r.path, rawBytes: r.raw_bytes, storedBytes: r.stored_bytes, byteOffset: r.byte_offset, sha256: r.sha256, createdAt: r.created_at }
      : null;
  }
}
