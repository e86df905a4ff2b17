import fs from 'node:fs';
import Database from 'better-sqlite3';
import { Cron } from 'croner';

/**
 * The night soak's ledger, kept from outside the room (test/soak/night.ts): the events read from the room file
 * as they come (the ring keeps 2000: read every second, each id once), what the room acknowledged, the
 * stand-ins' own logs and the stages' marker lines. Every broken promise is a violation, counted by kind, in
 * one of three classes: a lost event, a run done twice, a silent resume.
 */
export type ViolationClass = 'lost' | 'twice' | 'silent';

export interface NightViolations {
  counts: Record<string, number>;
  byClass: Record<ViolationClass, number>;
  details: string[];
}

export function violate(v: NightViolations, cls: ViolationClass, kind: string, detail: string): void {
  v.counts[kind] = (v.counts[kind] ?? 0) + 1;
  v.byClass[cls]++;
  if (v.details.length < 30) v.details.push(`${cls}/${kind}: ${detail}`);
}

export interface SeenEvent {
  id: number;
  kind: string;
  subject: string | null;
  data: Record<string, unknown>;
}

/** The events of the room file, read by id as they come; ids must follow each other with no hole, never go back. */
export class EventLedger {
  readonly events: SeenEvent[] = [];
  private lastId = 0;

  constructor(
    private readonly dbFile: string,
    private readonly v: NightViolations,
  ) {}

  /** Reads the events appended since the last read (the room may be running: a read-only WAL reader). */
  read(): void {
    if (!fs.existsSync(this.dbFile)) return;
    const db = new Database(this.dbFile, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      const rows = db.prepare('SELECT id, kind, subject, data FROM events WHERE id > ? ORDER BY id').all(this.lastId) as { id: number; kind: string; subject: string | null; data: string }[];
      if (rows.length === 0) return;
      if ((rows[0] as { id: number }).id !== this.lastId + 1) {
        const min = (db.prepare('SELECT min(id) AS id FROM events').get() as { id: number }).id;
        if (min > this.lastId + 1) violate(this.v, 'lost', 'events-trimmed-unread', `ids ${this.lastId + 1}..${min - 1} left the ring before they were read`);
        else violate(this.v, 'lost', 'event-id-hole', `after ${this.lastId} came ${(rows[0] as { id: number }).id}`);
      }
      for (let k = 1; k < rows.length; k++) {
        const [a, b] = [rows[k - 1] as { id: number }, rows[k] as { id: number }];
        if (b.id !== a.id + 1) violate(this.v, 'lost', 'event-id-hole', `after ${a.id} came ${b.id}`);
      }
      for (const r of rows) this.events.push({ id: r.id, kind: r.kind, subject: r.subject, data: JSON.parse(r.data) as Record<string, unknown> });
      this.lastId = (rows.at(-1) as { id: number }).id;
    } finally {
      db.close();
    }
  }

  /** After a restart: every event read before is still there as it was (the ring's tail), the ids did not go back. */
  checkAfterRestart(round: number): void {
    const db = new Database(this.dbFile, { readonly: true, fileMustExist: true });
    try {
      const integrity = db.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok') violate(this.v, 'lost', 'integrity', `round ${round}: ${String(integrity)}`);
      const max = (db.prepare('SELECT max(id) AS id FROM events').get() as { id: number | null }).id ?? 0;
      if (max < this.lastId) violate(this.v, 'lost', 'event-ids-went-back', `round ${round}: ${max} < ${this.lastId} read before the kill`);
      const tail = this.events.slice(-200);
      const kept = new Map((db.prepare('SELECT id, kind FROM events WHERE id >= ?').all(tail[0]?.id ?? 0) as { id: number; kind: string }[]).map((r) => [r.id, r.kind]));
      const min = (db.prepare('SELECT min(id) AS id FROM events').get() as { id: number | null }).id ?? 0;
      for (const e of tail) if (e.id >= min && kept.get(e.id) !== e.kind) violate(this.v, 'lost', 'event-gone-after-kill', `round ${round}: event ${e.id} ${e.kind} read before the kill is ${kept.get(e.id) ?? 'missing'}`);
    } finally {
      db.close();
    }
  }

  of(kind: string, subject?: string): SeenEvent[] {
    return this.events.filter((e) => e.kind === kind && (subject === undefined || e.subject === subject));
  }
}

export interface ScheduleFigures {
  due: number;
  ran: number;
  skipped: number;
  missed: number;
  failed: number;
}

/**
 * Every due time of each schedule, from its creation to the last one the room decided, has its event (ran,
 * skipped or failed one by one; missed counted in its event), none twice; each "ran" started one graph that
 * the room holds, and the room holds no graph of a schedule's that no "ran" accounts for.
 */
export function checkSchedules(dbFile: string, ledger: EventLedger, v: NightViolations): ScheduleFigures {
  const f: ScheduleFigures = { due: 0, ran: 0, skipped: 0, missed: 0, failed: 0 };
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const schedules = db.prepare('SELECT id, name, cron, time_zone AS tz, created_at AS created, decided_through AS through FROM schedules').all() as { id: string; name: string; cron: string; tz: string; created: string; through: string }[];
    const graphNames = new Map<string, number>();
    for (const g of db.prepare('SELECT name, count(*) AS n FROM graphs GROUP BY name').all() as { name: string | null; n: number }[]) graphNames.set(g.name ?? '', g.n);
    const graphIds = new Set((db.prepare('SELECT id FROM graphs').all() as { id: string }[]).map((r) => r.id));
    for (const s of schedules) {
      const cron = new Cron(s.cron, { timezone: s.tz, paused: true });
      let due = 0;
      const dueSet = new Set<string>();
      for (let d = cron.nextRun(new Date(s.created)); d && d.getTime() <= Date.parse(s.through); d = cron.nextRun(d)) {
        due++;
        dueSet.add(d.toISOString());
      }
      const singles = [...ledger.of('schedule.ran', s.id), ...ledger.of('schedule.skipped', s.id), ...ledger.of('schedule.failed', s.id)];
      const seen = new Set<string>();
      for (const e of singles) {
        const at = String(e.data.dueAt);
        if (seen.has(at)) violate(v, 'twice', 'due-time-decided-twice', `${s.name} ${at}: ${e.kind}`);
        seen.add(at);
        if (!dueSet.has(at)) violate(v, 'lost', 'event-for-no-due-time', `${s.name} ${at}: ${e.kind}`);
      }
      const missed = ledger.of('schedule.missed', s.id).reduce((n, e) => n + Number(e.data.count), 0);
      if (singles.length + missed !== due) violate(v, 'lost', 'due-time-without-event', `${s.name}: ${due} due times through ${s.through}, ${singles.length} ran/skipped/failed + ${missed} missed recorded`);
      const ran = ledger.of('schedule.ran', s.id);
      for (const e of ran) if (!graphIds.has(String(e.data.graphId))) violate(v, 'lost', 'ran-without-graph', `${s.name} ${String(e.data.dueAt)}: ${String(e.data.graphId)}`);
      const held = graphNames.get(s.name) ?? 0;
      if (held > ran.length) violate(v, 'twice', 'graph-without-ran', `${s.name}: ${held} graphs, ${ran.length} recorded runs`);
      f.due += due;
      f.ran += ran.length;
      f.skipped += ledger.of('schedule.skipped', s.id).length;
      f.failed += ledger.of('schedule.failed', s.id).length;
      f.missed += missed;
    }
  } finally {
    db.close();
  }
  return f;
}

/** Each stage's command leaves "graphId stageId attempt": a stage run twice (or a second attempt) shows here. */
export function checkMarkers(file: string, v: NightViolations): number {
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  const seen = new Set<string>();
  for (const line of lines) {
    const [graph, stage, attempt] = line.split(' ');
    const key = `${graph} ${stage}`;
    if (seen.has(key)) violate(v, 'twice', 'stage-ran-twice', key);
    if (attempt !== '1') violate(v, 'twice', 'stage-attempted-again', line);
    seen.add(key);
  }
  return lines.length;
}
