/**
 * Who may schedule what, and an agent task on a schedule, in a room process in this test (its clock moved by
 * the test): an agent with write schedules graphs and sees only its own schedules; agent tasks need operate;
 * a scheduled agent task starts its agent on a handoff, and the next due time is skipped while that handoff is
 * worked on; the time zone decides the instant (Europe/Paris across the spring change).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScheduleRunView, ScheduleView } from '../../../src-main/common/methods/schedules';
import { callTool, connectAgent } from '../../e2e/helpers/ui-room';
import { startTestRunner, type TestRunner } from '../../helpers/runner';

let runner: TestRunner;
let now = new Date('2030-03-30T00:50:00Z');
let builder: Client;
let other: Client;

const op = () => runner.running.engine.operator();
const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: Parameters<TestRunner['running']['engine']['call']>[2]) => runner.running.engine.call(op(), method, input as never);

async function runsWhen(scheduleId: string, count: number): Promise<ScheduleRunView[]> {
  for (let i = 0; i < 400; i++) {
    const { runs } = await runner.running.engine.call(op(), 'schedule_runs', { scheduleId });
    if (runs.length >= count && runs.every((r) => r.outcome !== 'starting')) return runs.reverse();
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`schedule ${scheduleId} never reached ${count} runs`);
}

async function refusal(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return r.content[0]?.text ?? '';
}

beforeAll(async () => {
  runner = await startTestRunner({ clock: () => now, limits: { scheduleTickMs: 50 } });
  builder = await connectAgent(runner.running, 'builder');
  other = await connectAgent(runner.running, 'reader', ['read']);
}, 30_000);

afterAll(async () => {
  await builder?.close();
  await other?.close();
  await runner?.close();
});

describe('schedules: capabilities, agent tasks, zones', () => {
  let mine: ScheduleView;

  it('a participant sees and removes its own schedules only; read alone adds none', async () => {
    mine = (await callTool<{ schedule: ScheduleView }>(builder, 'schedule_add', { name: 'mine', cron: '0 0 1 1 *', timeZone: 'UTC', graph: { stages: [{ id: 'a', command: 'true' }] } })).schedule;
    const theirs = (await call('schedule_add', { name: 'the person’s', cron: '0 0 1 1 *', timeZone: 'UTC', graph: { stages: [{ id: 'a', command: 'true' }] } })) as { schedule: ScheduleView };
    expect((await callTool<{ schedules: ScheduleView[] }>(builder, 'schedule_list', {})).schedules.map((s) => s.id)).toEqual([mine.id]);
    expect(await refusal(builder, 'schedule_runs', { scheduleId: theirs.schedule.id })).toMatch(/no schedule sc_\S+ that you may see/);
    expect(await refusal(builder, 'schedule_remove', { scheduleId: theirs.schedule.id })).toMatch(/no schedule sc_\S+ that you may see/);
    // read alone: schedule_add is not among its tools
    await expect(other.callTool({ name: 'schedule_add', arguments: { name: 'x', cron: '0 3 * * *', graph: { stages: [{ id: 'a', command: 'true' }] } } })).rejects.toThrow(/unknown tool: schedule_add/);
    expect((await other.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('schedule_'))).toEqual(['schedule_list', 'schedule_runs']);
    // the person (operate) sees every schedule and may remove another's
    expect(((await call('schedule_list', {})) as { schedules: ScheduleView[] }).schedules).toHaveLength(2);
    expect(((await call('schedule_remove', { scheduleId: mine.id })) as { removed: boolean }).removed).toBe(true);
    await call('schedule_remove', { scheduleId: theirs.schedule.id });
  });

  it('an agent task on a schedule starts its agent on a handoff; the next due time is skipped while it is worked on', async () => {
    const work = fs.mkdtempSync(path.join(runner.home.root, 'work-'));
    const { schedule } = (await call('schedule_add', {
      name: 'triage',
      cron: '0 * * * *',
      timeZone: 'UTC',
      agent: { client: 'command', command: ['sleep', '600'], task: 'triage the new issues', cwd: work },
    })) as { schedule: ScheduleView };
    expect(schedule.runs).toBe('agent command: triage the new issues');
    now = new Date('2030-03-30T01:00:05Z');
    const [first] = await runsWhen(schedule.id, 1);
    expect(first).toMatchObject({ outcome: 'ran', late: false });
    expect(first?.handoffId).toMatch(/^hf_/);
    const { handoff } = await runner.running.engine.call(op(), 'handoff_get', { handoffId: first?.handoffId as string });
    expect(handoff).toMatchObject({ summary: 'triage the new issues', status: 'accepted' });
    now = new Date('2030-03-30T02:00:05Z');
    const runs = await runsWhen(schedule.id, 2);
    expect(runs[1]).toMatchObject({ outcome: 'skipped' });
    expect(runs[1]?.reason).toMatch(new RegExp(`the previous run \\(handoff ${first?.handoffId}, .*\\) is still being worked on`));
    await call('schedule_remove', { scheduleId: schedule.id });
    const { agents } = await runner.running.engine.call(op(), 'agent_list', {});
    for (const a of agents) await runner.running.engine.call(op(), 'agent_stop', { shellId: a.shellId });
  });

  it('the zone decides the instant: 03:00 in Paris is 01:00 UTC once summer time begins', async () => {
    now = new Date('2030-03-30T12:00:00Z');
    const { schedule } = (await call('schedule_add', { name: 'paris', cron: '0 3 * * *', timeZone: 'Europe/Paris', graph: { stages: [{ id: 'a', command: 'true' }] } })) as { schedule: ScheduleView };
    // 31 March 2030 is the spring change in Paris: 03:00 local is then 01:00 UTC (UTC+2)
    expect(schedule.nextDueAt).toBe('2030-03-31T01:00:00.000Z');
    const { schedule: utc } = (await call('schedule_add', { name: 'utc', cron: '0 3 * * *', timeZone: 'UTC', graph: { stages: [{ id: 'a', command: 'true' }] } })) as { schedule: ScheduleView };
    expect(utc.nextDueAt).toBe('2030-03-31T03:00:00.000Z');
  });

  it('a clock that jumps while the room runs (the machine slept): the due times passed are missed, and the catch-up policy applies', async () => {
    now = new Date('2030-04-02T10:50:00Z');
    const graph = { stages: [{ id: 'a', command: 'true' }] };
    const { schedule: once } = (await call('schedule_add', { name: 'slept once', cron: '0 * * * *', timeZone: 'UTC', graph })) as { schedule: ScheduleView };
    const { schedule: skip } = (await call('schedule_add', { name: 'slept skip', cron: '0 * * * *', timeZone: 'UTC', catchUp: 'skip', graph })) as { schedule: ScheduleView };
    now = new Date('2030-04-02T13:30:00Z');
    const a = await runsWhen(once.id, 3);
    expect(a.map((r) => `${r.dueAt.slice(11, 16)} ${r.outcome}${r.late ? ' late' : ''}`)).toEqual(['11:00 missed', '12:00 missed', '13:00 ran late']);
    expect(a[0]?.reason).toBe('the room reached it late (the machine slept or the room was busy); a later due time was caught up instead');
    const b = await runsWhen(skip.id, 3);
    expect(b.map((r) => r.outcome)).toEqual(['missed', 'missed', 'missed']);
    expect(b[2]?.reason).toBe('the room reached it late (the machine slept or the room was busy); not run: its catch-up policy is skip');
  });
});
