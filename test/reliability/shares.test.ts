/**
 * One agent at its share of the room leaves room for the others: shells, running graphs and working tasks are
 * capped per agent under the room's caps, refused with the agent's own count, while another agent still
 * opens shells, runs graphs and hands off. Through the MCP endpoint with real SDK clients.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent } from '../e2e/helpers/ui-room';
import fs from 'node:fs';
import { limitsFromEnv } from '../../src-main/server/runner';
import { makeHome } from '../helpers/env';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { runCommonroom } from '../helpers/serve';

let runner: TestRunner;
let hog: Client;
let other: Client;

const LIMITS = { maxShells: 6, maxShellsPerAgent: 2, maxActiveGraphs: 6, maxActiveGraphsPerAgent: 2, maxActiveTasks: 10, maxActiveTasksPerAgent: 3 };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ ok: boolean; text: string; value: Record<string, unknown> }> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: Record<string, unknown> };
  return { ok: !r.isError, text: r.content[0]?.text ?? '', value: r.structuredContent };
}

beforeAll(async () => {
  runner = await startTestRunner({ limits: LIMITS });
  hog = await connectAgent(runner.running, 'hog');
  other = await connectAgent(runner.running, 'other');
}, 60_000);

afterAll(async () => {
  await hog?.close();
  await other?.close();
  await runner?.close();
});

/** How many rows the room holds of what a graph run writes. */
function rows(): Record<string, number> {
  const { db } = runner.running.engine.room;
  const n = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return { tasks: n('tasks'), graphs: n('graphs'), stages: n('graph_stages'), events: n('events') };
}

const slowGraph = { name: 'hold', stages: [{ id: 'wait', command: ['sleep', '60'] }] };

describe("an agent's share", () => {
  it('of shells: the agent is refused with its own count; another agent still opens one', async () => {
    for (let i = 0; i < 2; i++) expect((await call(hog, 'shell_open', { shell: '/bin/sh' })).ok).toBe(true);
    const refused = await call(hog, 'shell_open', { shell: '/bin/sh' });
    expect(refused.ok).toBe(false);
    expect(refused.text).toMatch(/you \(hog\) have 2 shells open, your share of the room's 6 \(at most 2 per agent\)/);
    expect((await call(other, 'shell_open', { shell: '/bin/sh' })).ok).toBe(true);
  });

  it('of running graphs and working tasks: the agent is refused; another agent still runs graphs and hands off', async () => {
    for (let i = 0; i < 2; i++) expect((await call(hog, 'tasks_run', slowGraph)).ok).toBe(true);
    const graphRefused = await call(hog, 'tasks_run', slowGraph);
    expect(graphRefused.text).toMatch(/you \(hog\) run 2 graphs, your share/);
    // its two graphs are two working tasks; one handoff more reaches its share of three
    expect((await call(hog, 'handoff_create', { summary: 'one', to: 'other' })).ok).toBe(true);
    const handoffRefused = await call(hog, 'handoff_create', { summary: 'two', to: 'other' });
    expect(handoffRefused.ok).toBe(false);
    expect(handoffRefused.text).toMatch(/you \(hog\) have 3 tasks working or waiting for input, your share of the room's 10/);
    expect((await call(other, 'tasks_run', slowGraph)).ok).toBe(true);
    expect((await call(other, 'handoff_create', { summary: 'mine', to: 'hog' })).ok).toBe(true);
  });

  it("a graph run counts against the room's cap of working tasks, as a handoff does", async () => {
    const { engine } = runner.running;
    // the room holds 2 + 1 (hog) + 1 + 1 (other) = 5 working tasks; the operator fills it to its cap of 10
    for (let i = 0; i < 5; i++) await engine.call(engine.operator(), 'handoff_create', { summary: `fill ${i}`, to: 'other' });
    const before = rows();
    await expect(engine.call(engine.operator(), 'tasks_run', slowGraph)).rejects.toThrow(/the room already has 10 tasks working/);
    // refused before anything is written: no task, graph, stage or event was made for it
    expect(rows()).toEqual(before);
    const byAgent = await call(other, 'tasks_run', slowGraph);
    expect(byAgent.ok).toBe(false);
    expect(rows()).toEqual(before);
  });

  it('does not hold the operator', async () => {
    const { engine } = runner.running;
    for (let i = 0; i < 3; i++) await engine.call(engine.operator(), 'shell_open', { shell: '/bin/sh' });
    const listed = await engine.call(engine.operator(), 'shell_list', {});
    expect(listed.shells.filter((s) => s.owner === engine.operator().name && s.alive)).toHaveLength(3);
  });

  it('is set by the person with COMMONROOM_LIMITS; a bad one is refused with what is allowed, before the room is touched', () => {
    expect(limitsFromEnv({ COMMONROOM_LIMITS: '{"maxShellsPerAgent": 4, "maxConnectionsPerParticipant": 8}' })).toEqual({ maxShellsPerAgent: 4, maxConnectionsPerParticipant: 8 });
    expect(limitsFromEnv({})).toEqual({});
    expect(() => limitsFromEnv({ COMMONROOM_LIMITS: '{"maxShellsPerAgnet": 4}' })).toThrow(/unknown limit "maxShellsPerAgnet".*maxShellsPerAgent/);
    expect(() => limitsFromEnv({ COMMONROOM_LIMITS: '{"maxShellsPerAgent": -1}' })).toThrow(/whole number of 0 or more/);
    expect(() => limitsFromEnv({ COMMONROOM_LIMITS: 'shells=4' })).toThrow(/not JSON/);
    const home = makeHome();
    try {
      const r = runCommonroom({ ...home, env: { ...home.env, COMMONROOM_LIMITS: '{"maxShellsPerAgnet": 4}' } }, ['serve', '--port', '0']);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/COMMONROOM_LIMITS: unknown limit/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(fs.existsSync(home.paths.dataDir)).toBe(false);
    } finally {
      home.cleanup();
    }
  });
});
