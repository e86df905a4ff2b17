/**
 * The morning summary (room_summary) through the MCP door with real SDK clients, after a scripted night of work
 * against a real room with real git and real processes: handoffs made, approved, rejected, one waiting on input,
 * one addressed to the person, one ready to merge with its checks; graphs that passed and failed; agents that
 * ended well and badly. It asserts the sections, their order, what each lists and its counts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { HandoffView } from '../../src-main/common/handoff-dto';
import type { RoomSummary } from '../../src-main/common/methods/summary';
import { workspaceRoom } from '../helpers/workspace-room';
import { GIT_IDENTITY } from '../helpers/git-repo';

const room = workspaceRoom();
const { call } = room;
type H = { handoff: HandoffView };

/** Made by lead for dev, accepted and completed by dev (with a workspace on `repo` when given). */
async function completed(summary: string, repo?: string): Promise<string> {
  const { handoff } = await call<H>('lead', 'handoff_create', { summary, to: 'dev', ...(repo ? { workspace: { repo } } : {}) });
  await call<H>('dev', 'handoff_accept', { handoffId: handoff.id });
  if (repo) {
    const { shell } = await call<{ shell: { id: string } }>('dev', 'shell_open', { handoffId: handoff.id, shell: '/bin/sh', env: { ...GIT_IDENTITY, PS1: '$ ' } });
    const run = await call<{ exitCode: number | null; output: string }>('dev', 'shell_run', { shellId: shell.id, command: "printf 'x\\n' > parser.txt && git add -A && git commit -qm 'Fix the parser'", timeoutMs: 30_000 });
    expect(run.exitCode, run.output).toBe(0);
    await call('dev', 'shell_close', { shellId: shell.id });
    const checks = await call<{ graphId: string }>('dev', 'tasks_run', { name: 'parser checks', handoffId: handoff.id, stages: [{ id: 'unit', command: 'test -f parser.txt' }] });
    await call('dev', 'tasks_status', { graphId: checks.graphId, stages: false, until: 'ended', waitMs: 20_000 });
  }
  await call<H>('dev', 'handoff_complete', { handoffId: handoff.id, result: 'done' });
  return handoff.id;
}

/** Starts an agent (the command client) whose program exits with `code`, and waits until the room records its end. */
async function agentThatExits(code: number): Promise<string> {
  const script = path.join(room.home.root, `agent-exit-${code}.sh`);
  fs.writeFileSync(script, `#!/bin/sh\necho working\nexit ${code}\n`, { mode: 0o755 });
  const ended = new Promise<void>((resolve) => {
    const off = room.running.engine.bus.subscribe((e) => {
      if (e.kind === 'agent.ended' && (e.data as { exitCode?: number }).exitCode === code) {
        off();
        resolve();
      }
    });
  });
  // agents are started by the person (the window, ce), not an MCP tool: through the engine the doors share
  const engine = room.running.engine;
  const { agent } = await engine.call(engine.operator(), 'agent_start', { client: 'command', command: [script], cwd: room.home.root });
  await ended;
  return agent.participant;
}

/** An agent whose program asks the person (a desktop notification, OSC 9) and waits; resolves once its terminal reads waiting. */
async function agentThatAsks(question: string): Promise<{ participant: string; shellId: string }> {
  const script = path.join(room.home.root, 'agent-asks.sh');
  fs.writeFileSync(script, `#!/bin/sh\nprintf '\\033]9;%s\\007' '${question}'\nexec sleep 120\n`, { mode: 0o755 });
  const engine = room.running.engine;
  const { agent } = await engine.call(engine.operator(), 'agent_start', { client: 'command', command: [script], cwd: room.home.root });
  await expect.poll(async () => (await engine.call(engine.operator(), 'shell_list', {})).shells.find((s) => s.id === agent.shellId)?.status.state, { timeout: 15_000 }).toBe('waiting');
  return { participant: agent.participant, shellId: agent.shellId };
}

describe('room_summary after a night of work', () => {
  it('lists what waits (oldest first), what ended, and what is ready to merge with its checks, in that order; empty sections are left out', { timeout: 120_000 }, async () => {
    const before = await call<RoomSummary>('operator', 'room_summary', {});
    expect(before.sections).toEqual([]); // a fresh room: nothing to say, no empty headings

    const repo = room.makeRepo('app');
    // the night: in the order it happened
    const ready = await completed('Fix the parser', repo);
    const asked = (await call<H>('lead', 'handoff_create', { summary: 'Pick the log format', to: 'dev' })).handoff.id;
    await call<H>('dev', 'handoff_accept', { handoffId: asked });
    await call<H>('dev', 'handoff_request_input', { handoffId: asked, requests: { format: { message: 'JSON or text?' } } });
    const approved = await completed('Write the release notes');
    await call<H>('operator', 'handoff_approve', { handoffId: approved, reason: 'reads well' });
    const rejected = await completed('Move the billing service');
    await call<H>('operator', 'handoff_reject', { handoffId: rejected, reason: 'the old pipeline still deploys it' });
    const forMe = (await call<H>('lead', 'handoff_create', { summary: 'Look over the roadmap', to: 'operator' })).handoff.id;
    const passed = await call<{ graphId: string }>('dev', 'tasks_run', { name: 'nightly build', stages: [{ id: 'build', command: 'true' }] });
    const failed = await call<{ graphId: string }>('dev', 'tasks_run', { name: 'nightly lint', stages: [{ id: 'lint', command: 'exit 3' }] });
    for (const g of [passed, failed]) await call('dev', 'tasks_status', { graphId: g.graphId, stages: false, until: 'ended', waitMs: 20_000 });
    const wellAgent = await agentThatExits(0);
    const badAgent = await agentThatExits(2);
    const asking = await agentThatAsks('Allow edits to parser.ts?');

    const summary = await call<RoomSummary>('operator', 'room_summary', {});
    expect(summary.sections.map((s) => s.id)).toEqual(['waiting', 'ended', 'ready']);
    const [waiting, ended, readySection] = summary.sections;

    // what waits for the person, oldest first: the review, the question, the handoff addressed to them
    // and the agent asking on its terminal
    expect(waiting?.items.map((i) => i.subject)).toEqual([ready, asked, forMe, asking.shellId]);
    expect(waiting?.items.map((i) => i.text)).toEqual([
      'handoff “Fix the parser” from dev waits for your review',
      'handoff “Pick the log format” from dev waits for your answer',
      'handoff “Look over the roadmap” from lead is addressed to you',
      `agent ${asking.participant} waits on a question: “Allow edits to parser.ts?”`,
    ]);
    expect(waiting?.items[3]?.open).toEqual({ screen: 'terminals', id: asking.shellId });

    expect(waiting?.counts).toBe('1 to review, 1 question, 1 for you, 1 agent asking');
    // what ended, newest first, as sentences, with its counts (the bad ones first)
    const texts = ended?.items.map((i) => i.text) ?? [];
    expect(texts[0]).toBe(`agent ${badAgent} ended (exit 2)`);
    expect(texts[1]).toBe(`agent ${wellAgent} ended (exit 0)`);
    expect(texts).toContain('graph “nightly lint” failed: lint failed');
    expect(texts).toContain('graph “nightly build” passed');
    expect(texts).toContain('operator approved handoff “Write the release notes”: “reads well”');
    expect(texts).toContain('operator rejected handoff “Move the billing service”: “the old pipeline still deploys it”');
    expect(texts).toContain('dev completed handoff “Fix the parser”: ready for review');
    expect(texts.some((t) => t.includes('{') || t.includes('"'))).toBe(false); // sentences, not field dumps
    expect(ended?.counts).toContain('1 approved');
    expect(ended?.counts).toContain('1 rejected');
    expect(ended?.counts).toContain('1 graph failed');
    expect(ended?.counts).toContain('2 graphs passed'); // the nightly build, and the parser's checks
    expect(ended?.counts).toContain('1 agent failed');
    expect(ended?.counts).toMatch(/^(1 rejected|1 graph failed|1 agent failed), (1 rejected|1 graph failed|1 agent failed), (1 rejected|1 graph failed|1 agent failed), /);
    expect(ended?.items.find((i) => i.text.includes('nightly lint'))).toMatchObject({ tone: 'bad', open: { screen: 'graphs', id: failed.graphId } });
    expect(ended?.items.find((i) => i.text.includes('nightly lint'))?.host ?? null).toBeNull(); // this machine (answers leave a null out)
    expect(ended?.items.find((i) => i.text.includes('approved'))).toMatchObject({ tone: 'good', open: { screen: 'history', id: approved } });

    // ready to merge: the handoff with a workspace, with the review's merge preview and its checks
    expect(readySection?.items).toHaveLength(1);
    expect(readySection?.counts).toBe('1 ready: 1 checks passed');
    expect(readySection?.items[0]).toMatchObject({ subject: ready, tone: 'good', text: 'handoff “Fix the parser” by dev into main' });
    expect(readySection?.items[0]?.detail).toEqual(['main has not moved; merges as a fast-forward', 'checks passed']);

    // a client that hands the model only the text reads the same summary: sections, sentences, ids to call with
    const texter = new Client({ name: 'text-only', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    const token = fs.readFileSync(room.running.tokenFile, 'utf8').trim();
    await texter.connect(new StreamableHTTPClientTransport(room.running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const answer = (await texter.callTool({ name: 'room_summary', arguments: {} })) as { content: { text: string }[] };
    const historyText = ((await texter.callTool({ name: 'workspace_history', arguments: { limit: 200 } })) as { content: { text: string }[] }).content[0]?.text ?? '';
    await texter.close();
    const text = answer.content[0]?.text ?? '';
    expect(text).toContain('Waiting for you (1 to review, 1 question, 1 for you, 1 agent asking)');
    expect(text).toContain(`handoff “Fix the parser” from dev waits for your review (${ready})`);
    expect(text).toContain('graph “nightly lint” failed: lint failed');
    expect(text.indexOf('Waiting for you')).toBeLessThan(text.indexOf('Finished, failed'));
    expect(text.indexOf('Finished, failed')).toBeLessThan(text.indexOf('Ready to merge'));
    // and the room's history reads as sentences there too, each with its kind and ids for the next call
    expect(historyText).toMatch(new RegExp(`operator approved handoff “Write the release notes”: “reads well” \\[handoff\\.approved ${approved}`));

    // a later window: what ended before it is left out; what waits and what is ready stay
    const later = await call<RoomSummary>('operator', 'room_summary', { since: new Date(Date.parse(summary.until) + 1000).toISOString() });
    expect(later.sections.map((s) => s.id)).toEqual(['waiting', 'ready']);

    // an agent's own summary: its visibility, and what waits for it (nothing is addressed to dev and open)
    const mine = await call<RoomSummary>('dev', 'room_summary', {});
    expect(mine.sections.find((s) => s.id === 'waiting')).toBeUndefined();
    expect(mine.sections.find((s) => s.id === 'ended')?.items.length).toBeGreaterThan(0);

    // one with no part in any of it (read only) hears of none of it: the summary reads as its caller
    const engine = room.running.engine;
    await engine.call(engine.operator(), 'participant_add', { name: 'outsider', capabilities: ['read'] });
    const outsider = await engine.call(engine.participantAs(engine.operator(), 'outsider'), 'room_summary', {});
    const told = JSON.stringify(outsider);
    for (const secret of ['Fix the parser', 'release notes', 'billing', 'roadmap', 'log format', ready, approved, rejected]) expect(told).not.toContain(secret);

    // and a bad time is refused with what it takes
    await expect(call('operator', 'room_summary', { since: 'yesterday' })).rejects.toThrow(/ISO 8601/);
    await room.running.engine.call(room.running.engine.operator(), 'agent_stop', { shellId: asking.shellId, revoke: true });
  });
});
