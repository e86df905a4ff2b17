import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRunView } from '../../../src-main/common/methods/agents';
import { startTestRunner, type TestRunner } from '../../helpers/runner';
import { watchReads } from '../../helpers/agent-watch';

/**
 * Stalls and usage limits, live: the room starts a stand-in for Claude Code (fixtures/stand-in-client.mjs, found as
 * `claude` first on the room's PATH) that hangs while it reads working, or prints a limit message of Claude
 * Code's and waits. The room's watch looks every 50 ms; a stall is 0.6 s of quiet; the room's clock is the
 * test's, so a reset time is reached by moving it. What the person sees (agent_list, shell_list), the events
 * (each once), and each policy's effect on the terminal (the keys it got, the arguments it was started again with).
 */
let runner: TestRunner;
let dir: string;
let offset = 0;
const setClock = (iso: string) => (offset = Date.parse(iso) - Date.now());
const PATH = process.env.PATH;

beforeAll(async () => {
  runner = await startTestRunner({ limits: { agentWatchTickMs: 50 }, clock: () => new Date(Date.now() + offset) });
  dir = fs.mkdtempSync(path.join(path.dirname(runner.running.engine.room.location.markdownPath), 'watch-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(__dirname, 'fixtures', 'stand-in-client.mjs')}" "$@"\n`, { mode: 0o755 });
  process.env.PATH = `${bin}:${PATH ?? ''}`;
});
afterAll(async () => {
  process.env.PATH = PATH;
  delete process.env.STAND_IN_SCENE;
  await runner?.close();
});

const op = () => runner.running.engine.operator();
const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: unknown) => runner.running.engine.call(op(), method, input);

async function start(scene: string, input: Record<string, unknown> = {}): Promise<AgentRunView> {
  process.env.STAND_IN_SCENE = scene;
  return (await call('agent_start', { client: 'claude-code', cwd: dir, cols: 100, rows: 20, ...input })).agent;
}
const { agentOf, shellOf, screen, events, kinds } = watchReads(() => runner);
/** Lets the watch look several more times (it looks every 50 ms): what did not happen by then does not repeat. */
const someLooks = () => new Promise((r) => setTimeout(r, 600));

describe('an agent that stalls', () => {
  it('reads stalled with how long, once, while it reads working and its terminal, CPU and process tree are quiet (policy tell)', { timeout: 30_000 }, async () => {
    const agent = await start('stall', { stallMinutes: 0.01 });
    expect(agent.watch).toMatchObject({ onStall: 'tell', stallMs: 600, onLimit: 'ask', stalled: null, limited: null, limitedUntil: null });
    await expect.poll(async () => (await agentOf(agent.shellId))?.watch.stalled, { timeout: 20_000 }).not.toBeNull();
    const listed = await agentOf(agent.shellId);
    expect(listed?.shell.status.state).toBe('working');
    expect(Date.parse(listed?.watch.stalled?.since ?? '') - Date.parse(listed?.watch.stalled?.quietSince ?? '')).toBeGreaterThanOrEqual(600);
    expect((await shellOf(agent.shellId))?.condition?.stalled).toEqual(listed?.watch.stalled);
    await someLooks();
    expect(await kinds(agent.shellId)).toEqual(['agent.stalled']);
    expect(await screen(agent.shellId)).toContain('Working… (esc to interrupt)'); // told, nothing typed
    expect((await shellOf(agent.shellId))?.lastInput).toBeNull();
    // the person types into it: it moved, the stall ends
    await call('shell_io', { shellId: agent.shellId, text: 'go on\r' });
    await expect.poll(() => kinds(agent.shellId), { timeout: 10_000 }).toEqual(['agent.stalled', 'agent.stall_ended']);
    expect((await agentOf(agent.shellId))?.watch.stalled).toBeNull();
  });

  it('does not read stalled while its CPU works or its process tree changes, its terminal silent', { timeout: 30_000 }, async () => {
    const busy = await start('cpu', { stallMinutes: 0.01 });
    const forking = await start('children', { stallMinutes: 0.01 });
    // a stalled one beside them, as the measure of "long enough"
    const stuck = await start('stall', { stallMinutes: 0.01 });
    await expect.poll(() => kinds(stuck.shellId), { timeout: 20_000 }).toEqual(['agent.stalled']);
    await someLooks();
    await someLooks();
    for (const a of [busy, forking]) {
      expect((await shellOf(a.shellId))?.status.state).toBe('working');
      expect(await kinds(a.shellId)).toEqual([]);
      expect((await agentOf(a.shellId))?.watch.stalled).toBeNull();
    }
    for (const a of [busy, forking, stuck]) await call('agent_stop', { shellId: a.shellId });
  });

  it('is interrupted with its client’s key (Esc for Claude Code) after a second look finds it still stalled (policy interrupt)', { timeout: 30_000 }, async () => {
    // quiet 2.4 s: longer than its status takes to read idle once it stops working (1.5 s)
    const agent = await start('stall', { stallMinutes: 0.04, onStall: 'interrupt' });
    await expect.poll(() => screen(agent.shellId), { timeout: 20_000 }).toContain('Interrupted by Esc');
    await expect.poll(() => kinds(agent.shellId), { timeout: 10_000 }).toEqual(['agent.stalled', 'agent.stall_interrupted', 'agent.stall_ended']);
    const [, interrupted] = await events(agent.shellId);
    expect(interrupted?.data).toMatchObject({ key: 'Esc' });
    expect((await shellOf(agent.shellId))?.lastInput?.by).toBe('commonroom');
    await expect.poll(async () => (await shellOf(agent.shellId))?.status.state, { timeout: 10_000 }).toBe('idle');
    await someLooks();
    expect(await kinds(agent.shellId)).toEqual(['agent.stalled', 'agent.stall_interrupted', 'agent.stall_ended']);
  });

  it('is started again going on with its conversation (its client’s resume arguments), as the same participant (policy restart)', { timeout: 30_000 }, async () => {
    const agent = await start('stall', { stallMinutes: 0.01, onStall: 'restart' });
    await expect.poll(() => kinds(agent.shellId), { timeout: 20_000 }).toEqual(['agent.stalled', 'agent.stall_restarted']);
    const [, restarted] = await events(agent.shellId);
    const next = restarted?.data.newShellId as string;
    expect((await shellOf(agent.shellId))?.alive ?? false).toBe(false); // closed
    const again = await agentOf(next);
    expect(again).toMatchObject({ participant: agent.participant, client: 'claude-code', cwd: agent.cwd, watch: { onStall: 'restart', stallMs: 600 } });
    await expect.poll(() => screen(next), { timeout: 10_000 }).toContain('resumed its conversation');
    expect(await screen(next)).toMatch(/args: --continue --mcp-config=/);
  });

  it('is restarted once: the run started again, stalled again before it ever rested, is told about, not restarted again', { timeout: 30_000 }, async () => {
    const agent = await start('stall-always', { stallMinutes: 0.01, onStall: 'restart' });
    await expect.poll(() => kinds(agent.shellId), { timeout: 20_000 }).toEqual(['agent.stalled', 'agent.stall_restarted']);
    const next = (await events(agent.shellId))[1]?.data.newShellId as string;
    await expect.poll(() => events(next), { timeout: 20_000 }).toEqual([{ kind: 'agent.stalled', data: expect.objectContaining({ policy: 'tell', actedBefore: true }) }]);
    await someLooks();
    expect(await kinds(next)).toEqual(['agent.stalled']);
    expect((await shellOf(next))?.alive).toBe(true);
    await call('agent_stop', { shellId: next });
  });
});

describe('an agent at its usage limit', () => {
  const LIMIT = "limit:You've hit your session limit · resets 3am (UTC)";

  it('reads limited until its reset, once, and is resumed at the reset with its client’s continue (policy resume)', { timeout: 30_000 }, async () => {
    setClock('2026-12-05T02:00:00Z');
    const agent = await start(LIMIT, { onLimit: 'resume' });
    await expect.poll(async () => (await agentOf(agent.shellId))?.watch.limitedUntil, { timeout: 20_000 }).toBe('2026-12-05T03:00:00.000Z');
    const listed = await agentOf(agent.shellId);
    expect(listed?.watch.limited).toMatchObject({ text: "You've hit your session limit · resets 3am (UTC)", until: '2026-12-05T03:00:00.000Z', resumeAt: '2026-12-05T03:00:00.000Z' });
    expect((await shellOf(agent.shellId))?.condition?.limited?.until).toBe('2026-12-05T03:00:00.000Z');
    await someLooks();
    expect(await kinds(agent.shellId)).toEqual(['agent.limited']);
    expect((await shellOf(agent.shellId))?.lastInput).toBeNull(); // never before its reset
    setClock('2026-12-05T03:00:02Z');
    await expect.poll(() => screen(agent.shellId), { timeout: 10_000 }).toContain('got: continue');
    expect(await kinds(agent.shellId)).toEqual(['agent.limited', 'agent.limit_resumed']);
    expect((await agentOf(agent.shellId))?.watch.limited).toBeNull();
    await someLooks();
    expect(await kinds(agent.shellId)).toEqual(['agent.limited', 'agent.limit_resumed']); // the old message on screen is not a new limit
  });

  it('is never resumed by the room when its policy asks the person (the default): told at the reset, resumed when the person says', { timeout: 30_000 }, async () => {
    setClock('2026-12-05T02:00:00Z');
    const agent = await start(LIMIT);
    await expect.poll(async () => (await agentOf(agent.shellId))?.watch.limited?.resumeAt, { timeout: 20_000 }).toBeNull();
    expect((await agentOf(agent.shellId))?.watch.limitedUntil).toBe('2026-12-05T03:00:00.000Z');
    setClock('2026-12-05T03:00:02Z');
    await expect.poll(() => kinds(agent.shellId), { timeout: 10_000 }).toEqual(['agent.limited', 'agent.limit_reset']);
    await someLooks();
    expect((await shellOf(agent.shellId))?.lastInput).toBeNull();
    expect(await kinds(agent.shellId)).toEqual(['agent.limited', 'agent.limit_reset']);
    await call('agent_limit', { shellId: agent.shellId, action: 'resume_now' });
    await expect.poll(() => screen(agent.shellId), { timeout: 10_000 }).toContain('got: continue');
    expect(await kinds(agent.shellId)).toEqual(['agent.limited', 'agent.limit_reset', 'agent.limit_resumed']);
  });

  it('is not resumed once the person cancels the countdown', { timeout: 30_000 }, async () => {
    setClock('2026-12-05T02:00:00Z');
    const agent = await start(LIMIT, { onLimit: 'resume' });
    await expect.poll(async () => (await agentOf(agent.shellId))?.watch.limited?.resumeAt, { timeout: 20_000 }).toBe('2026-12-05T03:00:00.000Z');
    const { agent: cancelled } = await call('agent_limit', { shellId: agent.shellId, action: 'cancel' });
    expect(cancelled.watch).toMatchObject({ limitedUntil: '2026-12-05T03:00:00.000Z', limited: { resumeAt: null } });
    setClock('2026-12-05T03:00:02Z');
    await expect.poll(() => kinds(agent.shellId), { timeout: 10_000 }).toEqual(['agent.limited', 'agent.limit_resume_cancelled', 'agent.limit_reset']);
    await someLooks();
    expect((await shellOf(agent.shellId))?.lastInput).toBeNull();
    expect(await screen(agent.shellId)).not.toContain('got:');
  });

  it('reads a limit with no reset time as limited with none, and leaves it (policy leave)', { timeout: 30_000 }, async () => {
    const agent = await start('limit:API Error: Request rejected (429) · Claude AI usage limit reached', { onLimit: 'leave' });
    await expect.poll(async () => (await agentOf(agent.shellId))?.watch.limited?.text, { timeout: 20_000 }).toBe('API Error: Request rejected (429) · Claude AI usage limit reached');
    expect((await agentOf(agent.shellId))?.watch).toMatchObject({ limitedUntil: null, limited: { until: null, resumeAt: null } });
    await expect(call('agent_limit', { shellId: agent.shellId, action: 'resume_at_reset' })).rejects.toThrow(/showed no reset time: resume it now/);
    // the person types into it: the limit is theirs to handle, and ends
    await call('shell_io', { shellId: agent.shellId, text: 'hello\r' });
    await expect.poll(() => kinds(agent.shellId), { timeout: 10_000 }).toEqual(['agent.limited', 'agent.limit_ended']);
  });
});

describe('the watch’s settings', () => {
  it('are the room’s defaults unless agent_start says, and each run’s can be changed', { timeout: 30_000 }, async () => {
    expect(await call('agent_watch_defaults', {})).toEqual({ stallMs: 600_000, onStall: 'tell', onLimit: 'ask' });
    expect(await call('agent_watch_defaults', { stallMinutes: 20, onLimit: 'leave' })).toEqual({ stallMs: 1_200_000, onStall: 'tell', onLimit: 'leave' });
    const agent = await start('idle');
    expect(agent.watch).toMatchObject({ stallMs: 1_200_000, onStall: 'tell', onLimit: 'leave' });
    const { agent: changed } = await call('agent_watch', { shellId: agent.shellId, onStall: 'interrupt', stallMinutes: 5 });
    expect(changed.watch).toMatchObject({ stallMs: 300_000, onStall: 'interrupt', onLimit: 'leave' });
    expect(await kinds(agent.shellId)).toEqual(['agent.watch_changed']);
    await expect(call('agent_limit', { shellId: agent.shellId, action: 'cancel' })).rejects.toThrow(/is not stopped at a usage limit now/);
    await call('agent_watch_defaults', { stallMinutes: 10, onLimit: 'ask' });
  });
});
