import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../../src-main/common/handoff-dto';
import { startRunner, type RunningRoom } from '../../../src-main/server/runner';
import { makeHome, type TestHome } from '../../helpers/env';

// handoff_history: the ended handoffs with who decided and why, read by an agent through a real MCP client
// and by the person (the operator) through the engine's contract, over a real room file
let home: TestHome;
let running: RunningRoom;
const clients: Record<string, Client> = {};
const made: Record<string, string> = {};
let started = '';

type Page = { handoffs: HandoffView[]; nextCursor: string | null };

async function call<T>(who: string, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await clients[who]!.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (result.isError) throw new Error(result.content[0]?.text ?? 'tool error');
  return result.structuredContent;
}

async function refused(who: string, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await clients[who]!.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
  expect(result.isError, `${name} should have been refused`).toBe(true);
  return result.content[0]?.text ?? '';
}

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
  const op = running.engine.operator();
  for (const name of ['agent-a', 'agent-b']) {
    const { token } = await running.engine.call(op, 'participant_add', { name, capabilities: ['read', 'write'] });
    const client = new Client({ name, version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients[name] = client;
  }
  started = new Date().toISOString();
  const finished = async (owner: string, to: string, summary: string) => {
    const { handoff } = await call<{ handoff: HandoffView }>(owner, 'handoff_create', { summary, to });
    await call(to, 'handoff_accept', { handoffId: handoff.id });
    await call(to, 'handoff_complete', { handoffId: handoff.id, result: `done: ${summary}` });
    return handoff.id;
  };
  made.approved = await finished('agent-a', 'agent-b', 'Write the release notes');
  await running.engine.call(op, 'handoff_approve', { handoffId: made.approved, reason: 'reads well, ship it' });
  made.rejected = await finished('agent-a', 'agent-b', 'Fix the flaky login test');
  await running.engine.call(op, 'handoff_reject', { handoffId: made.rejected, reason: 'the test still fails one run in ten' });
  const { handoff: mine } = await call<{ handoff: HandoffView }>('agent-b', 'handoff_create', { summary: 'Tidy the build scripts' });
  made.cancelled = mine.id;
  await call('agent-b', 'handoff_cancel', { handoffId: mine.id, reason: 'not needed after all' });
  // still going: never in the history
  made.open = (await call<{ handoff: HandoffView }>('agent-a', 'handoff_create', { summary: 'Still open', to: 'agent-b' })).handoff.id;
  const lonely = await running.engine.call(op, 'participant_add', { name: 'agent-c', capabilities: ['read'] });
  const c = new Client({ name: 'agent-c', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(running.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${lonely.token}` } } }));
  clients['agent-c'] = c;
}, 60_000);

afterAll(async () => {
  for (const c of Object.values(clients)) await c.close();
  await running.close();
  home.cleanup();
});

describe('handoff_history', () => {
  it('lists ended handoffs only, the most recently ended first, each with who ended it and why', async () => {
    const page = await call<Page>('agent-a', 'handoff_history', {});
    expect(page.handoffs.map((h) => h.id)).toEqual([made.rejected, made.approved]);
    const [rejected, approved] = page.handoffs;
    expect(rejected?.decision).toMatchObject({ approved: false, by: 'operator', reason: 'the test still fails one run in ten' });
    expect(approved?.decision).toMatchObject({ approved: true, by: 'operator', reason: 'reads well, ship it' });
    expect(page.nextCursor).toBeNull();
    // the person sees every ended handoff, the cancelled one with its note
    const all = await running.engine.call(running.engine.operator(), 'handoff_history', {});
    expect(all.handoffs.map((h) => h.id)).toEqual([made.cancelled, made.rejected, made.approved]);
    expect(all.handoffs[0]?.cancellation).toMatchObject({ by: 'agent-b', reason: 'not needed after all' });
    // a participant with no part in any of them sees none
    expect((await call<Page>('agent-c', 'handoff_history', {})).handoffs).toEqual([]);
  });

  it('narrows by status, participant, time and summary text', async () => {
    const op = running.engine.operator();
    const ids = async (input: Record<string, unknown>) => (await running.engine.call(op, 'handoff_history', input)).handoffs.map((h) => h.id);
    expect(await ids({ status: 'rejected' })).toEqual([made.rejected]);
    // the operator decided two of them; agent-b did both and cancelled its own
    expect(await ids({ participant: 'operator' })).toEqual([made.rejected, made.approved]);
    expect(await ids({ participant: 'agent-b', status: 'cancelled' })).toEqual([made.cancelled]);
    expect(await ids({ text: 'LOGIN' })).toEqual([made.rejected]);
    expect(await ids({ since: started })).toHaveLength(3);
    expect(await ids({ until: started })).toEqual([]);
    expect(await ids({ since: new Date(Date.now() + 3_600_000).toISOString() })).toEqual([]);
  });

  it('pages to the end with a cursor bound to its filter', async () => {
    const op = running.engine.operator();
    const first = await running.engine.call(op, 'handoff_history', { limit: 2 });
    expect(first.handoffs).toHaveLength(2);
    const second = await running.engine.call(op, 'handoff_history', { limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.handoffs.map((h) => h.id)).toEqual([made.approved]);
    expect(second.nextCursor).toBeNull();
    const other = await refused('agent-a', 'handoff_history', { status: 'approved', cursor: first.nextCursor ?? '' });
    expect(other).toMatch(/cursor was given out for another caller/);
  });

  it('refuses bad filters with a message saying what to send', async () => {
    expect(await refused('agent-a', 'handoff_history', { status: 'open' })).toMatch(/status/);
    expect(await refused('agent-a', 'handoff_history', { since: 'yesterday' })).toMatch(/ISO 8601/);
    expect(await refused('agent-a', 'handoff_history', { since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' })).toMatch(/must be before until/);
    expect(await refused('agent-a', 'handoff_history', { text: 'x'.repeat(201) })).toMatch(/at most 200 characters/);
    expect(await refused('agent-a', 'handoff_history', { limit: 500 })).toMatch(/limit/);
  });
});
