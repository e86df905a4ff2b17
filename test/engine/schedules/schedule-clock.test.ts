/**
 * Schedules tell the truth, through the MCP door with a real SDK client, in a real room process whose wall
 * clock the test moves (fixtures/fake-clock.mjs, preloaded from outside): a due time runs; the next is
 * skipped while the previous run still goes; the room is SIGKILLed, the clock moves on, and the room started
 * again records each due time it missed while down and catches up exactly once (policy "once") or not at all
 * (policy "skip"); a second SIGKILL and start runs nothing twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScheduleRunView, ScheduleView } from '../../../src-main/common/methods/schedules';
import { describeScheduleEvent } from '../../../src-main/common/schedule-event-text';
import type { RunningRoom } from '../../../src-main/server/runner';
import { callTool, connectWithToken } from '../../e2e/helpers/ui-room';
import { makeHome, markedSleep, type TestHome } from '../../helpers/env';
import { runCe, startServe, stopServe, type ServeProcess } from '../../helpers/serve';

const CLOCK = pathToFileURL(path.join(import.meta.dirname, 'fixtures/fake-clock.mjs')).href;
// SIGKILLs the room inside the transaction that appends an event of $CRASH_ON_EVENT_KIND (before its commit)
const CRASH = pathToFileURL(path.join(import.meta.dirname, '../handoffs/fixtures/crash-on-event.mjs')).href;

let home: TestHome;
let clockFile: string;
let room: ServeProcess;
let agentToken: string;

/** Sets the room process's wall clock to `iso` (it then moves on with real time). */
function setClock(iso: string): void {
  fs.writeFileSync(clockFile, String(Date.parse(iso) - Date.now()));
}

async function start(crashOn?: string): Promise<void> {
  const env = { ...home.env };
  if (crashOn) {
    env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --import ${CRASH}`;
    env.CRASH_ON_EVENT_KIND = crashOn;
    env.CRASH_MARKER = path.join(home.root, 'crashed');
  }
  room = await startServe({ ...home, env });
}

async function client(): Promise<Client> {
  return connectWithToken({ mcpUrl: new URL(room.mcpUrl) } as RunningRoom, agentToken);
}

/** Calls one tool on a fresh connection (a clock moved by hours may outlive a session). */
async function tool<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const c = await client();
  try {
    return await callTool<T>(c, name, args);
  } finally {
    await c.close();
  }
}

const runsOf = async (scheduleId: string) => (await tool<{ runs: ScheduleRunView[] }>('schedule_runs', { scheduleId })).runs;

/** Waits (polling the door) until the schedule's runs satisfy `done`; answers them, oldest first. */
async function runsWhen(scheduleId: string, done: (runs: ScheduleRunView[]) => boolean, what: string): Promise<ScheduleRunView[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const runs = (await runsOf(scheduleId)).reverse();
    if (done(runs)) return runs;
    if (Date.now() > deadline) throw new Error(`${what}: the runs are ${JSON.stringify(runs, null, 1)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function graphState(graphId: string): Promise<string> {
  return (await tool<{ graph: { state: string } }>('tasks_status', { graphId, stages: false })).graph.state;
}

async function graphWhen(graphId: string, states: string[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!states.includes(await graphState(graphId))) {
    if (Date.now() > deadline) throw new Error(`graph ${graphId} never reached ${states.join('/')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const outcomes = (runs: ScheduleRunView[]) => runs.map((r) => `${r.dueAt.slice(11, 16)} ${r.outcome}${r.late ? ' late' : ''}`);

async function openHome(): Promise<void> {
  home = makeHome();
  clockFile = path.join(home.root, 'clock-offset');
  home.env.NODE_OPTIONS = `${home.env.NODE_OPTIONS ?? ''} --import ${CLOCK}`.trim();
  home.env.FAKE_CLOCK_FILE = clockFile;
  // the scheduler looks at the (moved) clock every 100 ms instead of every 30 s
  home.env.COMMONROOM_LIMITS = JSON.stringify({ scheduleTickMs: 100 });
  setClock('2030-01-07T00:50:00Z');
  await start();
  const added = runCe(home, ['participant', 'add', 'builder', '--can', 'read,write', '--json']);
  expect(added.status, added.stderr).toBe(0);
  agentToken = (JSON.parse(added.stdout) as { token: string }).token;
}

async function closeHome(): Promise<void> {
  // stopped as a person stops it, so it ends the stages it runs (a SIGKILLed room's stages would go on writing
  // into the home while it is removed)
  if (room) await stopServe(room);
  home?.cleanup();
}

describe('schedules with the clock controlled (MCP door, real room process, SIGKILL)', () => {
  beforeAll(openHome, 30_000);
  afterAll(closeHome);
  let nightly: ScheduleView;
  let hourly: ScheduleView;

  it('an agent schedules graphs with write; an agent task, a bad pattern or zone is refused saying what to fix', async () => {
    const refused = async (args: Record<string, unknown>) => {
      const c = await client();
      const r = (await c.callTool({ name: 'schedule_add', arguments: args })) as { isError?: boolean; content: { text: string }[] };
      await c.close();
      expect(r.isError).toBe(true);
      return r.content[0]?.text ?? '';
    };
    const graph = { stages: [{ id: 'check', command: ['true'] }] };
    expect(await refused({ name: 'x', cron: '0 3 * *', graph })).toMatch(/has 4 fields: give five, minute hour day-of-month month day-of-week/);
    expect(await refused({ name: 'x', cron: '61 * * * *', graph })).toMatch(/not a cron pattern .*minute: 61/);
    expect(await refused({ name: 'x', cron: '0 3 * * *', timeZone: 'Mars/Olympus', graph })).toMatch(/not a time zone this machine knows: give an IANA name/);
    expect(await refused({ name: 'x', cron: '0 3 * * *', agent: { client: 'command', command: ['true'], task: 'do it' } })).toMatch(/needs the "operate" capability/);
    expect(await refused({ name: 'x', cron: '0 3 * * *' })).toMatch(/graph .* or agent/);

    const marker = markedSleep();
    nightly = (await tool<{ schedule: ScheduleView }>('schedule_add', {
      name: 'nightly build',
      cron: '0 * * * *',
      timeZone: 'UTC',
      catchUp: 'once',
      graph: { stages: [{ id: 'build', command: ['sleep', marker] }] },
    })).schedule;
    hourly = (await tool<{ schedule: ScheduleView }>('schedule_add', { name: 'hourly check', cron: '0 * * * *', timeZone: 'UTC', catchUp: 'skip', graph })).schedule;
    // (an MCP answer leaves a null out below its top level: no last run yet)
    expect(nightly).toMatchObject({ timeZone: 'UTC', catchUp: 'once', owner: 'builder', nextDueAt: '2030-01-07T01:00:00.000Z' });
    expect(nightly.lastRun ?? null).toBeNull();
    expect(hourly.catchUp).toBe('skip');
    const listed = await tool<{ schedules: ScheduleView[]; machineTimeZone: string }>('schedule_list', {});
    expect(listed.schedules.map((s) => s.name)).toEqual(['nightly build', 'hourly check']);
    expect(listed.machineTimeZone).toBeTruthy();
  });

  it('due: each runs at its due time and records what it started', async () => {
    setClock('2030-01-07T01:00:05Z');
    const a = await runsWhen(nightly.id, (r) => r.length === 1 && r[0]?.outcome === 'ran', 'nightly at 01:00');
    const b = await runsWhen(hourly.id, (r) => r.length === 1 && r[0]?.outcome === 'ran', 'hourly at 01:00');
    expect(a[0]).toMatchObject({ dueAt: '2030-01-07T01:00:00.000Z', late: false });
    expect(a[0]?.reason ?? null).toBeNull();
    expect(a[0]?.graphId).toMatch(/^gr_/);
    await graphWhen(a[0]?.graphId as string, ['running']);
    await graphWhen(b[0]?.graphId as string, ['completed']);
  });

  it('skipped: a due time while the previous run still goes is recorded as skipped, with why', async () => {
    setClock('2030-01-07T02:00:05Z');
    const a = await runsWhen(nightly.id, (r) => r.length === 2, 'nightly at 02:00');
    expect(a[1]).toMatchObject({ dueAt: '2030-01-07T02:00:00.000Z', outcome: 'skipped' });
    expect(a[1]?.graphId ?? null).toBeNull();
    expect(a[1]?.reason).toMatch(/the previous run \(graph gr_.*due .*01:00 \(UTC\)\) is still running/);
    const b = await runsWhen(hourly.id, (r) => r.length === 2, 'hourly at 02:00');
    expect(b[1]).toMatchObject({ outcome: 'ran', late: false });
    await graphWhen(b[1]?.graphId as string, ['completed']);
  });

  it('missed while down, caught up once: SIGKILL, the clock moves 3.5 hours, the room starts again', async () => {
    await stopServe(room, 'SIGKILL');
    setClock('2030-01-07T05:30:00Z');
    await start();
    // once: 03:00 and 04:00 missed, 05:00 run late; skip: all three missed, nothing run
    const a = await runsWhen(nightly.id, (r) => r.length === 5 && r[4]?.outcome !== 'starting', 'nightly after the restart');
    expect(outcomes(a)).toEqual(['01:00 ran', '02:00 skipped', '03:00 missed', '04:00 missed', '05:00 ran late']);
    expect(a[2]?.reason).toBe('the room was not running; a later due time was caught up instead');
    const b = await runsWhen(hourly.id, (r) => r.length === 5, 'hourly after the restart');
    expect(outcomes(b)).toEqual(['01:00 ran', '02:00 ran', '03:00 missed', '04:00 missed', '05:00 missed']);
    expect(b[4]?.reason).toBe('the room was not running; not run: its catch-up policy is skip');
  });

  it('never twice: a second SIGKILL and start runs no due time again; the next due time runs on time', async () => {
    await stopServe(room, 'SIGKILL');
    setClock('2030-01-07T05:40:00Z');
    await start();
    // the restarted room has looked at the clock once it answers a later schedule's first run
    setClock('2030-01-07T06:00:05Z');
    const a = await runsWhen(nightly.id, (r) => r.length === 6 && r[5]?.outcome !== 'starting', 'nightly at 06:00');
    expect(outcomes(a)).toEqual(['01:00 ran', '02:00 skipped', '03:00 missed', '04:00 missed', '05:00 ran late', '06:00 ran']);
    const b = await runsWhen(hourly.id, (r) => r.length === 6, 'hourly at 06:00');
    expect(outcomes(b)).toEqual(['01:00 ran', '02:00 ran', '03:00 missed', '04:00 missed', '05:00 missed', '06:00 ran']);
    // the graphs the room holds: one per "ran", none more
    const graphs = (await tool<{ graphs: { name: string | null }[] }>('tasks_list', { limit: 100 })).graphs;
    expect(graphs.filter((g) => g.name === 'nightly build')).toHaveLength(3);
    expect(graphs.filter((g) => g.name === 'hourly check')).toHaveLength(3);
  });

  it('each is an event with a readable record: ran, skipped, missed', async () => {
    const events: { kind: string; subject: string; data: Record<string, unknown> }[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await tool<{ events: typeof events; nextCursor: string; more: boolean }>('workspace_history', { limit: 200, ...(cursor ? { cursor } : {}) });
      events.push(...page.events);
      if (!page.more) break;
      cursor = page.nextCursor;
    }
    const of = (id: string) => events.filter((e) => e.subject === id).map((e) => e.kind);
    expect(of(nightly.id)).toEqual(['schedule.added', 'schedule.ran', 'schedule.skipped', 'schedule.missed', 'schedule.ran', 'schedule.ran']);
    expect(of(hourly.id)).toEqual(['schedule.added', 'schedule.ran', 'schedule.ran', 'schedule.missed', 'schedule.ran']);
    const missed = events.find((e) => e.subject === nightly.id && e.kind === 'schedule.missed');
    expect(missed?.data).toMatchObject({ count: 2, whileDown: true, caughtUp: true, first: '2030-01-07T03:00:00.000Z', last: '2030-01-07T04:00:00.000Z' });
    // each reads as a line a person understands
    const texts = (id: string) => events.filter((e) => e.subject === id).map((e) => describeScheduleEvent(e)?.replace(/gr_[\w-]+/g, 'gr_…'));
    expect(texts(nightly.id)).toEqual([
      'schedule "nightly build" was added',
      'schedule "nightly build" ran for Mon, 7 Jan 2030, 01:00 (UTC): graph gr_…',
      'schedule "nightly build" skipped Mon, 7 Jan 2030, 02:00 (UTC): the previous run (graph gr_…, due Mon, 7 Jan 2030, 01:00 (UTC)) is still running',
      'schedule "nightly build" missed 2 due times while the room was not running (from Mon, 7 Jan 2030, 03:00 (UTC) to Mon, 7 Jan 2030, 04:00 (UTC)); caught up once now',
      'schedule "nightly build" ran late (caught up when the room started) for Mon, 7 Jan 2030, 05:00 (UTC): graph gr_…',
      'schedule "nightly build" ran for Mon, 7 Jan 2030, 06:00 (UTC): graph gr_…',
    ]);
    expect(texts(hourly.id)[3]).toBe('schedule "hourly check" missed 3 due times while the room was not running (from Mon, 7 Jan 2030, 03:00 (UTC) to Mon, 7 Jan 2030, 05:00 (UTC)); not run: its catch-up policy is skip');
  });
});

describe('a room killed while it starts a due time', () => {
  beforeAll(openHome, 30_000);
  afterAll(closeHome);

  it('reads failed after the restart, and is not started again', async () => {
    const { schedule } = await tool<{ schedule: ScheduleView }>('schedule_add', { name: 'killed mid-start', cron: '0 * * * *', timeZone: 'UTC', graph: { stages: [{ id: 'check', command: ['true'] }] } });
    await stopServe(room, 'SIGTERM');
    // the graph is started, then the room dies inside the transaction that records it ran
    await start('schedule.ran');
    setClock('2030-01-07T01:00:05Z');
    expect((await room.exited).signal).toBe('SIGKILL');
    setClock('2030-01-07T01:00:30Z');
    await start();
    const runs = await runsWhen(schedule.id, (r) => r[0]?.outcome === 'failed', 'the run the room was starting');
    expect(outcomes(runs)).toEqual(['01:00 failed']);
    expect(runs[0]?.reason).toMatch(/^the room stopped while it was starting this run: it is not started again/);
    // one graph: the one started before the kill, never a second
    const graphs = (await tool<{ graphs: { name: string | null }[] }>('tasks_list', { limit: 100 })).graphs;
    expect(graphs.filter((g) => g.name === 'killed mid-start')).toHaveLength(1);
  });
});
