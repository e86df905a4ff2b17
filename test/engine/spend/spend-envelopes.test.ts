import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodOutputs } from '../../../src-main/common/contract';
import { callTool, connectWithToken } from '../../e2e/helpers/ui-room';
import { startTestRunner, type TestRunner } from '../../helpers/runner';

/**
 * Spend with a ceiling, live: the room starts a scripted client that reports usage the way Claude Code does (the
 * real OpenTelemetry JS SDK and its OTLP/HTTP protobuf exporter, configured only by the run's environment) and
 * records it per agent run; the person, through the MCP door with the SDK client, reads it and sets envelopes;
 * at the limit the room interrupts and stops the agent, or cancels the graph, and says so in the inbox.
 */
const SCRIPT = path.resolve(__dirname, '../../helpers/scripted-otel-client.mjs');
type Report = MethodOutputs['spend_report'];

let runner: TestRunner;
let person: Client;
let dir: string;
beforeAll(async () => {
  runner = await startTestRunner();
  dir = fs.mkdtempSync(path.join(path.dirname(runner.running.engine.room.location.markdownPath), 'spend-'));
  person = await connectWithToken(runner.running, runner.token);
});
afterAll(async () => {
  await person?.close();
  await runner?.close();
});

const op = () => runner.running.engine.operator();
const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: unknown) => runner.running.engine.call(op(), method, input);
const report = (args: Record<string, unknown> = {}) => callTool<Report>(person, 'spend_report', args);

async function startScripted(args: string[]) {
  const { agent } = await call('agent_start', { client: 'command', command: [process.execPath, SCRIPT, ...args], cwd: dir });
  return agent;
}

/** The run's row total, as spend_report answers it. */
async function ofRun(shellId: string) {
  const { rows } = await report();
  const mine = rows.filter((r) => r.run === shellId);
  return { rows: mine, cost: mine.reduce((n, r) => n + r.costMicroUsd, 0), input: mine.reduce((n, r) => n + r.inputTokens, 0), output: mine.reduce((n, r) => n + r.outputTokens, 0) };
}

async function inboxNotes(): Promise<{ summary: string; owner: string; to: string | null; status: string }[]> {
  const { handoffs } = await call('handoff_list', { limit: 100 });
  return handoffs.filter((h) => h.summary.startsWith('stopped by its envelope')).map((h) => ({ summary: h.summary, owner: h.owner, to: h.to, status: h.status }));
}

async function stoppedEvents(subject: string) {
  const { events } = await call('workspace_history', { limit: 200 });
  return events.filter((e) => e.kind === 'envelope.stopped' && e.subject === subject).map((e) => e.data as { limit: string; text: string; scope: string });
}

describe('a scripted client exporting OTLP metrics as Claude Code does', () => {
  it('is recorded per agent run with its participant, tokens and cost; its token is never on its command line', { timeout: 60_000 }, async () => {
    const agent = await startScripted(['--export-ms', '300', '--cost', '0.01', '--turns', '5']);
    await expect.poll(async () => (await ofRun(agent.shellId)).input, { timeout: 30_000, interval: 200 }).toBe(5000);
    const { rows, cost, output } = await ofRun(agent.shellId);
    expect(cost).toBe(50_000); // 5 turns of $0.01, in micro-dollars
    expect(output).toBe(1000);
    expect(rows[0]?.handoffId ?? null).toBeNull(); // below the top level an MCP answer leaves nulls out
    expect(rows[0]).toMatchObject({ participant: agent.participant, client: 'claude-code', cacheReadTokens: 250, cacheWriteTokens: 50, day: new Date().toISOString().slice(0, 10) });
    const { totals } = await report({ participant: agent.participant });
    expect(totals).toEqual([{ participant: agent.participant, inputTokens: 5000, outputTokens: 1000, cacheReadTokens: 250, cacheWriteTokens: 50, costMicroUsd: 50_000 }]);
    // the OTLP header variable carries the token in the environment; the command line has none of it
    expect(JSON.stringify(agent.shell.command)).not.toMatch(/Bearer|Authorization/);
    await call('agent_stop', { shellId: agent.shellId });
  });

  it('counts a cumulative series once: each export repeats the running total, the room adds only what is new', { timeout: 60_000 }, async () => {
    const agent = await startScripted(['--export-ms', '200', '--temporality', 'cumulative', '--turns', '4', '--cost', '0.02']);
    await call('shell_io', { shellId: agent.shellId, cursor: 'start', wait: { until: 'match', pattern: 'done', timeoutMs: 30_000 } });
    await expect.poll(async () => (await ofRun(agent.shellId)).input, { timeout: 10_000, interval: 200 }).toBe(4000);
    // more exports of the same totals arrive after the last turn: still counted once
    await new Promise((r) => setTimeout(r, 1200));
    expect(await ofRun(agent.shellId)).toMatchObject({ input: 4000, output: 800, cost: 80_000 });
    await call('agent_stop', { shellId: agent.shellId });
  });

  it('an envelope on cost stops it: interrupted with its key at a safe point, stopped, "stopped by its envelope: cost" in the inbox', { timeout: 90_000 }, async () => {
    // the room's own folder is in its data folder, which agents cannot write: the marks go to a temp folder
    const marks = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'spend-marks-')), 'marks');
    const agent = await startScripted(['--export-ms', '300', '--cost', '0.01', '--turn-ms', '150', '--mark', marks]);
    await expect.poll(async () => (await ofRun(agent.shellId)).cost, { timeout: 30_000, interval: 200 }).toBeGreaterThan(0);
    const { envelope } = await callTool<MethodOutputs['envelope_set']>(person, 'envelope_set', { scope: 'agent', target: agent.shellId, maxCostUsd: 0.25 });
    expect(envelope).toMatchObject({ scope: 'agent', target: agent.shellId, maxCostMicroUsd: 250_000, state: 'active' });
    expect(envelope.stopped ?? null).toBeNull();

    await expect.poll(async () => (await report()).envelopes.find((e) => e.target === agent.shellId)?.state, { timeout: 60_000, interval: 250 }).toBe('stopped');
    const stopped = (await report()).envelopes.find((e) => e.target === agent.shellId);
    expect(stopped?.stopped).toMatchObject({ limit: 'cost' });
    expect(stopped?.stopped?.text).toMatch(new RegExp(`^${agent.participant} \\(terminal ${agent.shellId}\\) spent \\$0\\.\\d\\d of its \\$0\\.25$`));
    // stopped: its terminal ended; it spent what its client had reported by then, at or past the ceiling
    await expect.poll(async () => (await call('agent_list', {})).agents.some((a) => a.shellId === agent.shellId && a.shell.alive), { timeout: 20_000 }).toBe(false);
    expect((await ofRun(agent.shellId)).cost).toBeGreaterThanOrEqual(250_000);
    // its client's interrupt key came first (the safe point), the hang-up of its terminal after (the client notes
    // the hang-up when it gets to run its handler: ended by its sandbox as its terminal goes, it may not)
    expect(['interrupted\n', 'interrupted\nhangup\n']).toContain(fs.readFileSync(marks, 'utf8'));
    // the person reads it in the inbox (an open handoff addressed to them) and in Activity
    await expect.poll(inboxNotes, { timeout: 10_000 }).toContainEqual({ summary: `stopped by its envelope: cost — ${stopped?.stopped?.text}`, owner: 'room-envelopes', to: 'operator', status: 'open' });
    await expect.poll(() => stoppedEvents(agent.shellId), { timeout: 10_000 }).toEqual([expect.objectContaining({ scope: 'agent', limit: 'cost', text: stopped?.stopped?.text })]);
    // it is stopped once: later reports and checks change nothing
    await new Promise((r) => setTimeout(r, 1500));
    expect(await stoppedEvents(agent.shellId)).toHaveLength(1);
    // the participant stays (its conversation can be started again), only its run ended
    const { participants } = await call('participant_list', {});
    expect(participants.find((p) => p.name === agent.participant)?.revokedAt ?? null).toBeNull();
  });

  it('an agent started with an envelope is bounded from its first moment, and stopped at it', { timeout: 90_000 }, async () => {
    const { agent } = await call('agent_start', { client: 'command', command: [process.execPath, SCRIPT, '--export-ms', '300', '--cost', '0.01', '--turn-ms', '150'], cwd: dir, envelope: { maxCostUsd: 0.05 } });
    // set before agent_start answered: no moment of the run went unbounded
    expect((await report()).envelopes.filter((e) => e.target === agent.shellId)).toEqual([expect.objectContaining({ scope: 'agent', maxCostMicroUsd: 50_000, createdBy: 'operator' })]);
    await expect.poll(async () => (await report()).envelopes.find((e) => e.target === agent.shellId)?.stopped?.limit, { timeout: 60_000, interval: 250 }).toBe('cost');
    await expect.poll(async () => (await call('agent_list', {})).agents.some((a) => a.shellId === agent.shellId && a.shell.alive), { timeout: 20_000 }).toBe(false);
    // an envelope with no limit in it is refused before anything starts
    await expect(call('agent_start', { client: 'command', command: ['true'], cwd: dir, envelope: {} })).rejects.toThrow(/at least one limit/);
  });

  it("a handoff's envelope on tokens stops the agent working on it, counting what every run on it reported", { timeout: 90_000 }, async () => {
    const { agent } = await call('agent_start', { client: 'command', command: [process.execPath, SCRIPT, '--export-ms', '300', '--turn-ms', '150'], cwd: dir, task: 'work until stopped' });
    const handoffId = agent.handoffId as string;
    expect(handoffId).toMatch(/^hf_/);
    await callTool(person, 'envelope_set', { scope: 'handoff', target: handoffId, maxTokens: 6000 });
    await expect.poll(async () => (await report()).envelopes.find((e) => e.target === handoffId)?.stopped?.limit, { timeout: 60_000, interval: 250 }).toBe('tokens');
    const text = (await report()).envelopes.find((e) => e.target === handoffId)?.stopped?.text;
    expect(text).toMatch(new RegExp(`^the work on handoff ${handoffId} used [\\d,]+ tokens of its 6,000$`));
    // recorded against the handoff, and its agent stopped
    const { rows } = await report({ handoffId });
    expect(rows.map((r) => [r.run, r.handoffId])).toEqual([[agent.shellId, handoffId]]);
    expect(rows[0]!.inputTokens + rows[0]!.outputTokens).toBeGreaterThanOrEqual(6000);
    await expect.poll(async () => (await call('agent_list', {})).agents.some((a) => a.shellId === agent.shellId && a.shell.alive), { timeout: 20_000 }).toBe(false);
    await expect.poll(() => stoppedEvents(handoffId), { timeout: 10_000 }).toEqual([expect.objectContaining({ scope: 'handoff', limit: 'tokens', text })]);
  });

  it('an envelope on idle time stops an agent run that sits at its prompt', { timeout: 60_000 }, async () => {
    const agent = await startScripted(['--export-ms', '300', '--turns', '2']);
    await callTool(person, 'envelope_set', { scope: 'agent', target: agent.shellId, maxIdleMs: 1500 });
    await expect.poll(async () => (await report()).envelopes.find((e) => e.target === agent.shellId)?.stopped?.limit, { timeout: 40_000, interval: 250 }).toBe('idle');
    expect((await report()).envelopes.find((e) => e.target === agent.shellId)?.stopped?.text).toMatch(new RegExp(`^${agent.participant} \\(terminal ${agent.shellId}\\) sat idle \\d+ s \\(its limit: 2 s\\)$`));
    await expect.poll(async () => (await call('agent_list', {})).agents.some((a) => a.shellId === agent.shellId && a.shell.alive), { timeout: 20_000 }).toBe(false);
  });

  it("a graph's envelope on wall-clock cancels its stages through the graph cancel path", { timeout: 60_000 }, async () => {
    const run = await callTool<MethodOutputs['tasks_run']>(person, 'tasks_run', {
      name: 'overnight',
      stages: [
        { id: 'long', command: 'sleep 600' },
        { id: 'after', command: 'true', dependsOn: ['long'] },
      ],
    });
    await callTool(person, 'envelope_set', { scope: 'graph', target: run.graphId, maxWallMs: 1500 });
    await expect.poll(async () => (await call('tasks_status', { graphId: run.graphId })).graph.state, { timeout: 30_000, interval: 250 }).toBe('cancelled');
    const status = await call('tasks_status', { graphId: run.graphId });
    expect('stages' in status ? status.stages.map((s) => [s.id, s.state]) : []).toEqual([
      ['long', 'cancelled'],
      ['after', 'cancelled'],
    ]);
    await expect.poll(() => stoppedEvents(run.graphId), { timeout: 10_000 }).toEqual([expect.objectContaining({ scope: 'graph', limit: 'wall', text: expect.stringMatching(/^graph overnight ran \d+ s of its 2 s$/) })]);
    const events = await stoppedEvents(run.graphId);
    expect(await inboxNotes(), JSON.stringify(events)).toContainEqual({ summary: `stopped by its envelope: wall — ${events[0]?.text}`, owner: 'room-envelopes', to: 'operator', status: 'open' });
  });

  it("watching a graph's wall-clock reads the graph once, not every second; the graph ending by itself ends its envelope", { timeout: 60_000 }, async () => {
    const run = await callTool<MethodOutputs['tasks_run']>(person, 'tasks_run', { name: 'quiet', stages: [{ id: 'wait', command: 'sleep 30' }] });
    await callTool(person, 'envelope_set', { scope: 'graph', target: run.graphId, maxWallMs: 3_600_000 });
    const reads = async () => (await call('audit_list', { limit: 200 })).entries.filter((e) => e.method === 'tasks_status' && e.target === run.graphId).length;
    const before = await reads();
    await new Promise((r) => setTimeout(r, 3_500)); // three ticks and more
    expect(await reads()).toBe(before);
    await call('tasks_cancel', { graphId: run.graphId });
    await expect.poll(async () => (await report()).envelopes.find((e) => e.target === run.graphId)?.state, { timeout: 10_000 }).toBe('ended');
    expect(await stoppedEvents(run.graphId)).toEqual([]);
  });

  it('refuses an envelope on work that is not going, and a graph envelope on cost', async () => {
    await expect(callTool(person, 'envelope_set', { scope: 'agent', target: 'sh_nothing', maxCostUsd: 1 })).rejects.toThrow(/no agent the room started runs in terminal sh_nothing/);
    const run = await callTool<MethodOutputs['tasks_run']>(person, 'tasks_run', { stages: [{ id: 's', command: 'sleep 30' }] });
    await expect(callTool(person, 'envelope_set', { scope: 'graph', target: run.graphId, maxCostUsd: 1 })).rejects.toThrow(/a graph's envelope bounds its wall-clock time/);
    await expect(callTool(person, 'envelope_set', { scope: 'graph', target: run.graphId })).rejects.toThrow(/at least one limit/);
    await call('tasks_cancel', { graphId: run.graphId });
  });
});
