import type Database from 'better-sqlite3';
import type { CatchUpPolicy, ScheduleOutcome, ScheduleRunView } from '../../common/methods/schedules';

interface ScheduleRow {
  id: string;
  name: string;
  cron: string;
  time_zone: string;
  kind: 'graph' | 'agent';
  spec: string;
  catch_up: CatchUpPolicy;
  owner: string;
  created_at: string;
  decided_through: string;
  removed_at: string | null;
}

interface RunRow {
  schedule_id: string;
  due_at: string;
  outcome: ScheduleOutcome;
  late: number;
  decided_at: string;
  graph_id: string | null;
  handoff_id: string | null;
  shell_id: string | null;
  reason: string | null;
}

export interface ScheduleRecord {
  id: string;
  name: string;
  cron: string;
  timeZone: string;
  kind: 'graph' | 'agent';
  /** tasks_run's input (graph) or agent_start's (agent), as it was added. */
  spec: Record<string, unknown>;
  catchUp: CatchUpPolicy;
  owner: string;
  createdAt: string;
  /** Every due time up to this one is decided (recorded in schedule_runs, or before the schedule was added). */
  decidedThrough: string;
  removedAt: string | null;
}

/** One due time's decision, recorded in the transaction that makes it. */
export interface RunDecision {
  dueAt: string;
  outcome: ScheduleOutcome;
  late: boolean;
  reason: string | null;
}

function toRecord(row: ScheduleRow): ScheduleRecord {
  return {
    id: row.id,
    name: row.name,
    cron: row.cron,
    timeZone: row.time_zone,
    kind: row.kind,
    spec: JSON.parse(row.spec) as Record<string, unknown>,
    catchUp: row.catch_up,
    owner: row.owner,
    createdAt: row.created_at,
    decidedThrough: row.decided_through,
    removedAt: row.removed_at,
  };
}

function toRun(row: RunRow): ScheduleRunView {
  return {
    scheduleId: row.schedule_id,
    dueAt: row.due_at,
    outcome: row.outcome,
    late: row.late === 1,
    decidedAt: row.decided_at,
    graphId: row.graph_id,
    handoffId: row.handoff_id,
    shellId: row.shell_id,
    reason: row.reason,
  };
}

/** Schedule and schedule-run rows (the schedules feature is their one owner and writer). Callers own the transaction. */
export class ScheduleRepo {
  constructor(private readonly db: Database.Database) {}

  /** Schedules not removed, oldest first. */
  active(): ScheduleRecord[] {
    return (this.db.prepare('SELECT * FROM schedules WHERE removed_at IS NULL ORDER BY created_at, id').all() as ScheduleRow[]).map(toRecord);
  }

  byId(id: string): ScheduleRecord | null {
    const row = this.db.prepare('SELECT * FROM schedules WHERE id = ?').get(id) as ScheduleRow | undefined;
    return row ? toRecord(row) : null;
  }

  countActive(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM schedules WHERE removed_at IS NULL').get() as { n: number }).n;
  }

  insert(s: Omit<ScheduleRecord, 'removedAt' | 'decidedThrough'>): void {
    this.db
      .prepare('INSERT INTO schedules (id, name, cron, time_zone, kind, spec, catch_up, owner, created_at, decided_through) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(s.id, s.name, s.cron, s.timeZone, s.kind, JSON.stringify(s.spec), s.catchUp, s.owner, s.createdAt, s.createdAt);
  }

  remove(id: string, at: string): boolean {
    return this.db.prepare('UPDATE schedules SET removed_at = ? WHERE id = ? AND removed_at IS NULL').run(at, id).changes > 0;
  }

  /**
   * Records the decisions of due times after `decided_through` and moves it to the last of them, keeping the
   * newest `keep` runs of the schedule. A due time already recorded is left as it was (the key refuses a
   * second decision): answers the decisions actually recorded.
   */
  decide(id: string, decisions: readonly RunDecision[], through: string, at: string, keep: number): RunDecision[] {
    const insert = this.db.prepare('INSERT INTO schedule_runs (schedule_id, due_at, outcome, late, decided_at, reason) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING');
    const recorded = decisions.filter((d) => insert.run(id, d.dueAt, d.outcome, d.late ? 1 : 0, at, d.reason).changes > 0);
    this.db.prepare('UPDATE schedules SET decided_through = max(decided_through, ?) WHERE id = ?').run(through, id);
    this.db
      .prepare('DELETE FROM schedule_runs WHERE schedule_id = ? AND due_at NOT IN (SELECT due_at FROM schedule_runs WHERE schedule_id = ? ORDER BY due_at DESC LIMIT ?)')
      .run(id, id, keep);
    return recorded;
  }

  /** A started run's outcome: ran (with what it started) or failed (with why). */
  finish(id: string, dueAt: string, outcome: 'ran' | 'failed', started: { graphId?: string | null; handoffId?: string | null; shellId?: string | null }, reason: string | null): void {
    this.db
      .prepare("UPDATE schedule_runs SET outcome = ?, graph_id = ?, handoff_id = ?, shell_id = ?, reason = ? WHERE schedule_id = ? AND due_at = ? AND outcome = 'starting'")
      .run(outcome, started.graphId ?? null, started.handoffId ?? null, started.shellId ?? null, reason, id, dueAt);
  }

  /** Runs a previous room process was starting when it stopped (never started again: they read failed). */
  starting(): ScheduleRunView[] {
    return (this.db.prepare("SELECT * FROM schedule_runs WHERE outcome = 'starting'").all() as RunRow[]).map(toRun);
  }

  runs(id: string, limit: number): ScheduleRunView[] {
    return (this.db.prepare('SELECT * FROM schedule_runs WHERE schedule_id = ? ORDER BY due_at DESC LIMIT ?').all(id, limit) as RunRow[]).map(toRun);
  }

  /** The newest run that started something (the one a new run may have to wait for). */
  lastStarted(id: string): ScheduleRunView | null {
    const row = this.db.prepare("SELECT * FROM schedule_runs WHERE schedule_id = ? AND outcome = 'ran' ORDER BY due_at DESC LIMIT 1").get(id) as RunRow | undefined;
    return row ? toRun(row) : null;
  }
}
