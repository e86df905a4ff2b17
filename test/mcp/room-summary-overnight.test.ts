/**
 * The morning summary's spend and schedules sections (room_summary through the MCP door, real SDK client) after
 * a scripted night in a real room whose clock the test moves (the runner's clock option): a schedule that ran at
 * its due time and missed the next (the room reached it a day late; its catch-up policy is skip), with its next
 * due time; two scripted clients reporting usage over OTLP as Claude Code does, one under a live envelope, one
 * stopped by its envelope. Who may not read spend or another's schedules gets neither section.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodOutputs } from '../../src-main/common/contract';
import type { RoomSummary } from '../../src-main/common/methods/summary';
import { callTool, connectWithToken } from '../e2e/helpers/ui-room';
import { startTestRunner, type TestRunner } from '../helpers/runner';

const SCRIPT = path.resolve(__dirname, '../helpers/scripted-otel-client.mjs');

let offset = 0;
/** Sets the room's clock to `iso` (it then moves on with real time). */
const setClock = (iso: string) => {
  offset = Date.parse(iso) - Date.now();
};

let runner: TestRunner;
let person: Client;
let dir: string;
beforeAll(async () => {
  setClock('2030-01-07T00:50:00Z');
  // the scheduler looks every 100 ms instead of every 30 s
  runner = await startTestRunner({ clock: () => new Date(Date.now() + offset), limits: { scheduleTickMs: 100 } });
  dir = fs.mkdtempSync(path.join(path.dirname(runner.running.engine.room.location.markdownPath), 'overnight-'));
  person = await connectWithToken(runner.running, runner.token);
});
afterAll(async () => {
  await person?.close();
  await runner?.close();
});

const engine = () => runner.running.engine;
const op = () => engine().operator();
const runsOf = async (scheduleId: string) => (await callTool<MethodOutputs['schedule_runs']>(person, 'schedule_runs', { scheduleId })).runs.map((r) => r.outcome);
const costOf = async (shellId: string) => (await callTool<MethodOutputs['spend_report']>(person, 'spend_report', {})).rows.filter((r) => r.run === shellId).reduce((n, r) => n + r.costMicroUsd, 0);
const envelopeState = async (shellId: string) => (await callTool<MethodOutputs['spend_report']>(person, 'spend_report', {})).envelopes.find((e) => e.target === shellId)?.state;

describe('room_summary: spend against envelopes, schedules run and missed', () => {
  it('lists each live envelope with what it used, the envelope that stopped work, spend per agent, each schedule\'s runs and next due time', { timeout: 120_000 }, async () => {
    // a schedule: due at 01:00 every day (UTC), skipping what it missed
    const { schedule } = await callTool<MethodOutputs['schedule_add']>(person, 'schedule_add', { name: 'nightly', cron: '0 1 * * *', timeZone: 'UTC', catchUp: 'skip', graph: { stages: [{ id: 'build', command: 'true' }] } });
    setClock('2030-01-07T01:00:02Z');
    await expect.poll(() => runsOf(schedule.id), { timeout: 20_000, interval: 100 }).toEqual(['ran']);
    const [ran] = (await callTool<MethodOutputs['schedule_runs']>(person, 'schedule_runs', { scheduleId: schedule.id })).runs;
    await callTool(person, 'tasks_status', { graphId: ran?.graphId, stages: false, until: 'ended', waitMs: 20_000 });
    // the room reaches the next due time late (the machine slept past it): missed, not run
    setClock('2030-01-08T01:05:00Z');
    await expect.poll(() => runsOf(schedule.id), { timeout: 20_000, interval: 100 }).toEqual(['missed', 'ran']);

    // two clients reporting usage: one does three turns of $0.01 under a $1 envelope; one goes on until its $0.05 envelope stops it
    const start = async (args: string[]) => (await engine().call(op(), 'agent_start', { client: 'command', command: [process.execPath, SCRIPT, ...args], cwd: dir })).agent;
    const calm = await start(['--export-ms', '200', '--cost', '0.01', '--turns', '3']);
    await expect.poll(() => costOf(calm.shellId), { timeout: 30_000, interval: 200 }).toBe(30_000);
    await callTool(person, 'envelope_set', { scope: 'agent', target: calm.shellId, maxCostUsd: 1, maxTokens: 100_000 });
    const busy = await start(['--export-ms', '300', '--cost', '0.01', '--turn-ms', '150']);
    await expect.poll(() => costOf(busy.shellId), { timeout: 30_000, interval: 200 }).toBeGreaterThan(0);
    await callTool(person, 'envelope_set', { scope: 'agent', target: busy.shellId, maxCostUsd: 0.05 });
    await expect.poll(() => envelopeState(busy.shellId), { timeout: 60_000, interval: 250 }).toBe('stopped');
    const stoppedText = (await callTool<MethodOutputs['spend_report']>(person, 'spend_report', {})).envelopes.find((e) => e.target === busy.shellId)?.stopped?.text;
    expect(stoppedText).toMatch(/spent \$0\.\d\d of its \$0\.05$/);

    // its stop is recorded once the stopped agent reached its safe point
    const read = () => callTool<RoomSummary>(person, 'room_summary', { since: '2030-01-07T00:00:00Z' });
    await expect.poll(async () => (await read()).sections.find((s) => s.id === 'spend')?.items.some((i) => i.kind === 'envelope.stopped'), { timeout: 20_000, interval: 250 }).toBe(true);
    const summary = await read();
    const section = (id: string) => summary.sections.find((s) => s.id === id);
    // sections in their fixed order
    expect(summary.sections.map((s) => s.id).filter((id) => id === 'spend' || id === 'schedules')).toEqual(['spend', 'schedules']);

    const spend = section('spend');
    const spendTexts = spend?.items.map((i) => i.text) ?? [];
    expect(spendTexts).toContain(`envelope on the agent run in terminal ${calm.shellId} (${calm.participant}): $0.03 of $1.00, 3,600 of 100,000 tokens`);
    expect(spendTexts).toContain(`stopped by its envelope: cost — ${stoppedText}`);
    expect(spendTexts).toContain(`${calm.participant} spent $0.03 (3,600 tokens) since 2030-01-07`);
    expect(spendTexts.some((t) => t.startsWith(`${busy.participant} spent $0.`))).toBe(true);
    expect(spend?.items.find((i) => i.kind === 'envelope.stopped')).toMatchObject({ tone: 'bad' });
    expect(spend?.items.find((i) => i.kind === 'spend.envelope')?.open).toEqual({ screen: 'terminals', id: calm.shellId });
    expect(spend?.counts).toMatch(/^1 stopped by its envelope, 1 envelope live, \$0\.\d\d spent since 2030-01-07$/);

    const schedules = section('schedules');
    const scheduleTexts = schedules?.items.map((i) => i.text) ?? [];
    expect(scheduleTexts).toContain('schedule "nightly" (0 1 * * *): ran once, missed once in this window; next due Wed, 9 Jan 2030, 01:00 (UTC)');
    expect(scheduleTexts.some((t) => /^schedule "nightly" ran for Mon, 7 Jan 2030, 01:00 \(UTC\): graph gr_/.test(t))).toBe(true);
    expect(scheduleTexts).toContain('schedule "nightly" missed 1 due time: the room reached it late (at Tue, 8 Jan 2030, 01:00 (UTC))');
    expect(schedules?.items.find((i) => i.kind === 'schedule.next')?.open).toEqual({ screen: 'schedules', id: schedule.id });
    expect(schedules?.counts).toBe('1 missed, 1 schedule ran, 1 schedule live');

    // an agent that may neither read spend (operate) nor the person's schedules has neither section
    const { token } = await engine().call(op(), 'participant_add', { name: 'reader', capabilities: ['read', 'write'] });
    const reader = await connectWithToken(runner.running, token);
    try {
      const theirs = await callTool<RoomSummary>(reader, 'room_summary', { since: '2030-01-07T00:00:00Z' });
      expect(theirs.sections.map((s) => s.id)).not.toContain('spend');
      expect(theirs.sections.map((s) => s.id)).not.toContain('schedules');
    } finally {
      await reader.close();
    }
  });
});
