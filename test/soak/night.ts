import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeHome } from '../helpers/env';
import { startServe, stopServe, type ServeProcess } from '../helpers/serve';
import { api } from './clients';
import { checkMarkers, checkSchedules, EventLedger, violate, type NightViolations, type ScheduleFigures } from './night-ledger';

/**
 * An accelerated night: a real `commonroom serve` whose wall clock runs fast (fixtures/night-clock.mjs: ten
 * hours of room time in the soak's wall time, one timeline across restarts), with schedules on cron (catch-up
 * once and skip), twenty stand-in agents started through agent_start (fixtures/night-stand-in.mjs as claude,
 * codex and gemini: they work, hang while working under each stall policy, stop at their client's usage limit
 * under each limit policy), a graph per round under a wall-clock envelope, and random SIGKILLs of the room, each
 * followed by a start again and the agents started again. The ledger (night-ledger.ts) is kept from outside.
 *
 * Clocks: Date in the room is accelerated; timers are not (a setTimeout waits real ms). The scheduler arms its
 * timer for the next due time computed on the fast clock (too long in real ms) but looks at least every
 * scheduleTickMs, set here to 100 real ms, so each due time is decided within 100 ms × factor of room time.
 * A stall is measured on monotonic time (stallMs is real ms); a usage limit's reset and an envelope's
 * wall-clock are on the room's clock (fast).
 */
const NIGHT_HOURS = 10;
const STALL_MINUTES = 0.05; // 3 s of real quiet
const CLOCK = pathToFileURL(path.join(import.meta.dirname, 'fixtures/night-clock.mjs')).href;
const STAND_IN = path.join(import.meta.dirname, 'fixtures/night-stand-in.mjs');

interface Slot {
  slot: string;
  client: 'claude-code' | 'codex' | 'gemini-cli';
  role: 'work' | 'stall' | 'limit';
  onStall: 'tell' | 'interrupt' | 'restart';
  onLimit: 'resume' | 'ask' | 'leave';
}

/** Twenty agents' worth: each stall policy, each limit policy on each client's message, and plain workers. */
export const SLOTS: Slot[] = [
  ...(['tell', 'tell', 'interrupt', 'interrupt', 'interrupt', 'restart', 'restart', 'restart'] as const).map((onStall) => ({ client: 'claude-code' as const, role: 'stall' as const, onStall, onLimit: 'ask' as const })),
  ...([['claude-code', 'resume'], ['codex', 'resume'], ['gemini-cli', 'resume'], ['claude-code', 'ask'], ['codex', 'ask'], ['gemini-cli', 'leave'], ['claude-code', 'leave']] as const).map(([client, onLimit]) => ({ client, role: 'limit' as const, onStall: 'tell' as const, onLimit })),
  ...Array.from({ length: 5 }, () => ({ client: 'claude-code' as const, role: 'work' as const, onStall: 'tell' as const, onLimit: 'ask' as const })),
].map((s, i) => ({ ...s, slot: `night-${String(i + 1).padStart(2, '0')}-${s.role}` }));

export interface NightTally {
  wallMinutes: number;
  factor: number;
  scheduleStepMinutes: number;
  kills: number;
  agentStarts: number;
  stalled: number;
  interrupted: number;
  restarted: number;
  limited: number;
  resumed: number;
  graphsUnderEnvelope: number;
  envelopeStops: number;
  schedules: ScheduleFigures;
  markers: number;
  events: number;
  /** Stand-in log records cut short by a SIGKILL as they were written (read past, counted). */
  tornRecords: number;
  violations: NightViolations;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runNight(wallMinutes: number, opts: { roundSeconds: [number, number] }): Promise<NightTally> {
  const wallMs = wallMinutes * 60_000;
  const factor = (NIGHT_HOURS * 3_600_000) / wallMs;
  const step = Math.max(1, Math.ceil((2000 * factor) / 60_000)); // a due time at least every 2 real seconds
  const home = makeHome();
  const work = path.join(home.root, 'work');
  const logDir = path.join(home.root, 'stand-in-logs');
  const bin = path.join(home.root, 'bin');
  for (const d of [work, logDir, bin]) fs.mkdirSync(d);
  const markers = path.join(home.root, 'markers.log');
  const markdown = path.join(work, 'room.md');
  const dbFile = `${markdown}.commonroom.db`;
  // the night starts at 21:00 room time, UTC
  const clock = `${Date.now()}:${Date.parse('2030-01-07T21:00:00Z')}:${factor}`;
  const config = path.join(home.root, 'night.json');
  fs.writeFileSync(config, JSON.stringify({ clock, logDir }));
  for (const program of ['claude', 'codex', 'gemini']) fs.writeFileSync(path.join(bin, program), `#!/bin/sh\nexec "${process.execPath}" "${STAND_IN}" ${program} "$@"\n`, { mode: 0o755 });
  home.env.PATH = `${bin}:${home.env.PATH ?? process.env.PATH ?? ''}`;
  home.env.TZ = 'UTC';
  home.env.NIGHT_CLOCK = clock;
  home.env.NODE_OPTIONS = `${home.env.NODE_OPTIONS ?? ''} --import ${CLOCK}`.trim();
  home.env.COMMONROOM_LIMITS = JSON.stringify({ scheduleTickMs: 100, scheduleLateMs: Math.max(120_000, Math.round(10_000 * factor)), agentWatchTickMs: 250 });

  const v: NightViolations = { counts: {}, byClass: { lost: 0, twice: 0, silent: 0 }, details: [] };
  const ledger = new EventLedger(dbFile, v);
  const t: NightTally = { wallMinutes, factor, scheduleStepMinutes: step, kills: 0, agentStarts: 0, stalled: 0, interrupted: 0, restarted: 0, limited: 0, resumed: 0, graphsUnderEnvelope: 0, envelopeStops: 0, schedules: { due: 0, ran: 0, skipped: 0, missed: 0, failed: 0 }, markers: 0, events: 0, tornRecords: 0, violations: v };
  const acked = { agents: new Map<string, string>(), graphs: new Set<string>(), envelopes: new Set<string>(), schedules: new Set<string>() };
  const startsPerSlot = new Map<string, number>();
  const deadline = Date.now() + wallMs;
  let serve: ServeProcess = await startServe(home, ['--room', markdown]);
  const call = <T>(method: string, input: unknown) => api<T>(serve.mcpUrl, serve.token, method, input);
  const reader = setInterval(() => {
    try {
      ledger.read();
    } catch {
      // the room file mid-restart: the next read catches up
    }
  }, 1000);
  try {
    for (const s of SLOTS) await call('participant_add', { name: s.slot, capabilities: ['read', 'write'] });
    const mark = `echo "$COMMONROOM_GRAPH_ID $COMMONROOM_STAGE_ID $COMMONROOM_ATTEMPT" >> '${markers}'`;
    const realStepS = (step * 60_000) / factor / 1000;
    const schedules = [
      { name: 'every step, catch up once', cron: `*/${step} * * * *`, catchUp: 'once', graph: { stages: [{ id: 'mark', command: mark }] } },
      { name: 'every step, slow, skip', cron: `*/${step} * * * *`, catchUp: 'skip', graph: { stages: [{ id: 'mark', command: mark }, { id: 'slow', command: `${mark}; sleep ${(realStepS * 1.5).toFixed(2)}`, dependsOn: ['mark'] }] } },
      { name: 'half-hourly, catch up once', cron: '0,30 * * * *', catchUp: 'once', graph: { stages: [{ id: 'a', command: mark }, { id: 'b', command: mark, dependsOn: ['a'] }] } },
    ];
    for (const s of schedules) acked.schedules.add((await call<{ schedule: { id: string } }>('schedule_add', { ...s, timeZone: 'UTC' })).schedule.id);

    for (let round = 0; Date.now() < deadline; round++) {
      for (const s of SLOTS) {
        const { agent } = await call<{ agent: { shellId: string } }>('agent_start', {
          client: s.client,
          participant: s.slot,
          cwd: work,
          cols: 120,
          rows: 24,
          args: [`--night=${config}`, `--slot=${s.slot}`, `--role=${s.role}`],
          stallMinutes: STALL_MINUTES,
          onStall: s.onStall,
          onLimit: s.onLimit,
        });
        acked.agents.set(agent.shellId, s.slot);
        startsPerSlot.set(s.slot, (startsPerSlot.get(s.slot) ?? 0) + 1);
        t.agentStarts++;
      }
      const { graphId } = await call<{ graphId: string }>('tasks_run', { name: `under an envelope r${round}`, stages: [{ id: 'long', command: `${mark}; sleep 3600` }] });
      acked.graphs.add(graphId);
      t.graphsUnderEnvelope++;
      await call('envelope_set', { scope: 'graph', target: graphId, maxWallMs: 20 * 60_000 });
      acked.envelopes.add(graphId);
      const [lo, hi] = opts.roundSeconds;
      await sleep(Math.min(deadline - Date.now(), (lo + Math.random() * (hi - lo)) * 1000));
      if (Date.now() >= deadline) break;
      serve.proc.kill('SIGKILL');
      await serve.exited;
      t.kills++;
      // down a while (up to 2.5 due times of the frequent schedules): due times missed while the room was not running
      await sleep(Math.random() * 2.5 * realStepS * 1000);
      serve = await startServe(home, ['--room', markdown]);
      ledger.read();
      ledger.checkAfterRestart(round);
      // no stand-in outlives the room that started it (nothing left to be resumed by no one)
      await sleep(1000);
      const left = standInsRunning(config);
      if (left.length > 0) violate(v, 'silent', 'stand-in-outlived-room', `round ${round}: ${left.join(', ')}`);
    }
  } finally {
    clearInterval(reader);
    await stopServe(serve);
  }
  let checked = false;
  try {
    ledger.read();
    t.events = ledger.events.length;
    checkAcknowledged(ledger, acked, v);
    t.schedules = checkSchedules(dbFile, ledger, v);
    t.markers = checkMarkers(markers, v);
    t.tornRecords = checkStandIns(logDir, startsPerSlot, ledger, v);
    t.stalled = ledger.of('agent.stalled').length;
    t.interrupted = ledger.of('agent.stall_interrupted').length;
    t.restarted = ledger.of('agent.stall_restarted').length;
    t.limited = ledger.of('agent.limited').length;
    t.resumed = ledger.of('agent.limit_resumed').length;
    t.envelopeStops = ledger.of('envelope.stopped').length;
    for (const g of acked.envelopes) if (ledger.of('envelope.stopped', g).length > 1) violate(v, 'twice', 'envelope-stopped-twice', g);
    checked = true;
  } finally {
    // a night whose checking itself failed keeps what it wrote, to be read again (hours of running are not lost)
    if (checked) home.cleanup();
    else console.error(`[soak night] the checks did not finish: the night's room, logs and ledger are kept in ${home.root}`);
  }
  return t;
}

/** The stand-ins of this night still running (their command line names its config), as "pid slot". */
function standInsRunning(config: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd.includes(`--night=${config}`)) found.push(`${pid} ${cmd.find((a) => a.startsWith('--slot=')) ?? ''}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * A stand-in's log, a record a line. A stand-in SIGKILLed while it wrote may leave part of a record (Linux ends a
 * write to a file short when a fatal signal is pending), and the next run's record then follows on the same line:
 * the torn part is counted (`torn`), the record after it read.
 */
function readLog(file: string, torn: { count: number }): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    try {
      records.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      torn.count++;
      const next = line.indexOf('{"pid":', 1);
      if (next > 0) records.push(JSON.parse(line.slice(next)) as Record<string, unknown>);
    }
  }
  return records;
}

/** When a run's last record says it hung (its last output then), or null: it was not hung. */
function hangOf(last: Record<string, unknown> | null): number | null {
  if (last?.ev === 'quiet') return Number(last.lastOut);
  if (last?.ev === 'signal' && last.state === 'quiet') return Number(last.real) - Number(last.quietMs);
  return null;
}

/** Every change the room acknowledged has its event. */
function checkAcknowledged(ledger: EventLedger, acked: { agents: Map<string, string>; graphs: Set<string>; envelopes: Set<string>; schedules: Set<string> }, v: NightViolations): void {
  const started = new Set(ledger.of('agent.started').map((e) => String(e.data.shellId)));
  for (const [shellId, slot] of acked.agents) if (!started.has(shellId)) violate(v, 'lost', 'agent-start-without-event', `${slot} ${shellId}`);
  const submitted = new Set(ledger.of('graph.submitted').map((e) => e.subject));
  for (const g of acked.graphs) if (!submitted.has(g)) violate(v, 'lost', 'graph-without-event', g);
  for (const e of ledger.of('schedule.ran')) if (!submitted.has(String(e.data.graphId))) violate(v, 'lost', 'graph-without-event', `scheduled ${String(e.data.graphId)}`);
  const envelopes = new Set(ledger.of('envelope.set').map((e) => e.subject));
  for (const g of acked.envelopes) if (!envelopes.has(g)) violate(v, 'lost', 'envelope-without-event', g);
  const added = new Set(ledger.of('schedule.added').map((e) => e.subject));
  for (const s of acked.schedules) if (!added.has(s)) violate(v, 'lost', 'schedule-without-event', s);
}

/**
 * What the stand-ins got, by their own logs: Esc only under policy interrupt and only while it had been quiet
 * at least its stall time; a continue only under policy resume, only while limited and at or after the reset it
 * printed; a start resuming its conversation only under policy restart, its previous run ended while hung at
 * least its stall time; no other start than the test's own. Each key the room typed and each start again has
 * its event (the room never acts without saying so).
 */
function checkStandIns(logDir: string, startsPerSlot: Map<string, number>, ledger: EventLedger, v: NightViolations): number {
  const stallMs = STALL_MINUTES * 60_000;
  const torn = { count: 0 };
  for (const s of SLOTS) {
    const file = path.join(logDir, `${s.slot}.log`);
    const log = fs.existsSync(file) ? readLog(file, torn) : [];
    let esc = 0;
    let continues = 0;
    let resumedStarts = 0;
    let freshStarts = 0;
    let last: Record<string, unknown> | null = null;
    for (const r of log) {
      if (r.ev === 'start') {
        if (r.resumed) {
          resumedStarts++;
          // its previous run hung (nothing drawn, nothing typed into it since): its end, when it was killed,
          // came before this start, so this start is at least its stall time after its last output
          const hung = hangOf(last);
          const quiet = hung !== null && Number(r.real) - hung >= stallMs;
          if (s.onStall !== 'restart') violate(v, 'silent', 'resumed-without-policy', `${s.slot} pid ${String(r.pid)}`);
          else if (!quiet) violate(v, 'silent', 'restarted-not-stalled', `${s.slot} pid ${String(r.pid)} after ${JSON.stringify(last)}`);
        } else freshStarts++;
      } else if (r.ev === 'typed') {
        const text = String(r.text);
        if (text === '\x1b') {
          esc++;
          if (s.onStall !== 'interrupt') violate(v, 'silent', 'interrupted-without-policy', `${s.slot} at room ${new Date(Number(r.room)).toISOString()}`);
          else if (r.state !== 'quiet' || Number(r.quietMs) < stallMs) violate(v, 'silent', 'interrupted-not-stalled', `${s.slot}: ${String(r.state)} quiet ${String(r.quietMs)} ms`);
        } else if (text === 'continue\r' || text === 'continue') {
          continues++;
          if (s.onLimit !== 'resume') violate(v, 'silent', 'resumed-without-policy', `${s.slot} (${s.onLimit}) at room ${new Date(Number(r.room)).toISOString()}`);
          else if (r.state !== 'limited') violate(v, 'silent', 'continue-not-limited', `${s.slot}: ${String(r.state)}`);
          else if (Number(r.room) < Number(r.until)) violate(v, 'silent', 'resumed-before-reset', `${s.slot}: at ${new Date(Number(r.room)).toISOString()}, reset ${new Date(Number(r.until)).toISOString()}`);
        } else if (text !== '\r') violate(v, 'silent', 'typed-unexpected', `${s.slot}: ${JSON.stringify(text)} while ${String(r.state)}`);
      }
      last = r;
    }
    if (freshStarts > (startsPerSlot.get(s.slot) ?? 0)) violate(v, 'silent', 'started-by-no-one', `${s.slot}: ${freshStarts} fresh starts, ${startsPerSlot.get(s.slot) ?? 0} agent_start calls`);
    // each key typed and each start again has its event, as the participant it was typed into
    const count = (kind: string) => ledger.of(kind, s.slot).length;
    if (esc > count('agent.stall_interrupted')) violate(v, 'lost', 'interrupt-without-event', `${s.slot}: ${esc} Esc got, ${count('agent.stall_interrupted')} events`);
    if (continues > count('agent.limit_resumed')) violate(v, 'lost', 'resume-without-event', `${s.slot}: ${continues} continues got, ${count('agent.limit_resumed')} events`);
    if (resumedStarts > count('agent.stall_restarted')) violate(v, 'lost', 'restart-without-event', `${s.slot}: ${resumedStarts} resumed starts, ${count('agent.stall_restarted')} events`);
  }
  return torn.count;
}
