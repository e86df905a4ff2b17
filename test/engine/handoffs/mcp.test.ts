import fs from 'node:fs';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPage, HandoffView } from '../../../src-main/common/handoff-dto';
import { startRunner, type RunningRoom } from '../../../src-main/server/runner';
import { makeHome, type TestHome } from '../../helpers/env';

let home: TestHome;
let running: RunningRoom;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
  tokens.operator = fs.readFileSync(running.tokenFile, 'utf8').trim();
  const op = running.engine.operator();
  for (const name of ['agent-a', 'agent-b']) {
    tokens[name] = (await running.engine.call(op, 'participant_add', { name, capabilities: ['read', 'write'] })).token;
  }
});
afterAll(async () => {
  await running.close();
  home.cleanup();
});

interface ToolClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{ tools: { name: string }[] }>;
  close(): Promise<void>;
}

/** agent A speaks the 2026-07-28 era through the v2 SDK, the others the 2025 era through the v1 SDK: same tools. */
async function connect(who: string, era: 'modern' | 'legacy'): Promise<ToolClient> {
  const headers = { Authorization: `Bearer ${tokens[who] ?? ''}` };
  if (era === 'modern') {
    const client = new ClientV2({ name: who, version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(running.mcpUrl, { requestInit: { headers } }));
    expect(client.getProtocolEra()).toBe('modern');
    return client as unknown as ToolClient;
  }
  const client = new ClientV1({ name: who, version: '1' });
  await client.connect(new TransportV1(running.mcpUrl, { requestInit: { headers } }));
  return client as unknown as ToolClient;
}

async function call<T>(client: ToolClient, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
  if (result.isError) throw new Error(result.content[0]?.text ?? 'tool error');
  return result.structuredContent;
}

async function toolError(client: ToolClient, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
  expect(result.isError, `${name} should have been refused`).toBe(true);
  return result.content[0]?.text ?? '';
}

describe('handoffs through real MCP clients over HTTP', () => {
  it('agent A hands work to agent B, B asks the person, the operator answers, B completes, the operator approves', async () => {
    const a = await connect('agent-a', 'modern');
    const b = await connect('agent-b', 'legacy');
    const op = await connect('operator', 'modern');
    try {
      const agentTools = (await a.listTools()).tools.map((t) => t.name);
      expect(agentTools).toEqual(
        expect.arrayContaining(['handoff_create', 'handoff_accept', 'handoff_request_input', 'handoff_answer_input', 'handoff_complete', 'handoff_get', 'handoff_events', 'handoff_cancel', 'workspace_history']),
      );
      // an agent without "approve" is not offered approval, and nobody is offered the operator-only variant
      expect(agentTools).not.toContain('handoff_approve');
      expect(agentTools).not.toContain('handoff_task_cancel_as');
      expect((await op.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['handoff_approve', 'handoff_reject']));

      const { handoff } = await call<{ handoff: HandoffView; created: boolean }>(a, 'handoff_create', {
        summary: 'Review the migration plan in PLAN.md',
        to: 'agent-b',
        constraints: 'do not touch production',
        artifacts: [{ uri: 'file:///repo/PLAN.md' }],
        idempotency_key: 'review-plan',
      });
      expect(handoff).toMatchObject({ status: 'open', owner: 'agent-a', to: 'agent-b', task: { status: 'working', operation: 'handoff.execute' } });
      const id = handoff.id;
      // the same key again: the original, not a second handoff
      const again = await call<{ handoff: HandoffView; created: boolean }>(a, 'handoff_create', { summary: 'Review the migration plan in PLAN.md', to: 'agent-b', idempotency_key: 'review-plan' });
      expect(again).toMatchObject({ created: false, handoff: { id, taskId: handoff.taskId } });

      expect(await toolError(a, 'handoff_complete', { handoffId: id, result: 'x' })).toMatch(/^CONFLICT: cannot complete a handoff that is open/);

      const accepted = await call<{ handoff: HandoffView }>(b, 'handoff_accept', { handoffId: id });
      // over MCP a handoff's task leaves out what repeats the handoff (its ids, owner, assignee)
      expect(accepted.handoff).toMatchObject({ status: 'accepted', assignee: 'agent-b', task: { status: 'working' } });
      expect(accepted.handoff.task).not.toHaveProperty('assignee');

      const asked = await call<{ handoff: HandoffView }>(b, 'handoff_request_input', {
        handoffId: id,
        requests: { window: { message: 'May the migration run during business hours?' } },
      });
      expect(asked.handoff.task?.status).toBe('input_required');
      expect(asked.handoff.task?.inputRequests?.window?.params.message).toBe('May the migration run during business hours?');

      const answered = await call<{ handoff: HandoffView }>(op, 'handoff_answer_input', {
        handoffId: id,
        answers: { window: { action: 'accept', content: { answer: 'no, after 18:00' } } },
      });
      expect(answered.handoff.task?.status).toBe('working');
      // B reads the answer from the handoff, the authority
      const seen = await call<{ handoff: HandoffView }>(b, 'handoff_get', { handoffId: id });
      expect(seen.handoff.inputAnswers.window).toMatchObject({ action: 'accept', content: { answer: 'no, after 18:00' }, answeredBy: 'operator' });

      const done = await call<{ handoff: HandoffView }>(b, 'handoff_complete', { handoffId: id, result: 'Plan reviewed: run it after 18:00.', artifacts: [{ uri: 'file:///repo/REVIEW.md' }] });
      expect(done.handoff).toMatchObject({ status: 'result_ready', result: { text: 'Plan reviewed: run it after 18:00.' }, task: { status: 'completed' } });
      expect(await toolError(b, 'handoff_complete', { handoffId: id, result: 'another result' })).toMatch(/does not replace it/);

      // A waits for the decision in one call (2026 era), B in another (2025 era): the approval answers both
      const waitA = call<{ handoff: HandoffView; waitedMs: number }>(a, 'handoff_get', { handoffId: id, waitMs: 20_000, until: 'ended' });
      const waitB = call<{ handoff: HandoffView; waitedMs: number }>(b, 'handoff_get', { handoffId: id, waitMs: 20_000, until: 'approved' });
      await new Promise((r) => setTimeout(r, 100));
      const approved = await call<{ handoff: HandoffView }>(op, 'handoff_approve', { handoffId: id, reason: 'thanks' });
      for (const waited of await Promise.all([waitA, waitB])) {
        expect(waited.handoff.status).toBe('approved');
        expect(waited.waitedMs).toBeLessThan(20_000);
      }
      expect(approved.handoff).toMatchObject({ status: 'approved', decision: { approved: true, by: 'operator' }, task: { status: 'completed' } });

      // the exact trail it leaves, the same through handoff_events and workspace_history
      const expected = [
        ['handoff.created', 'agent-a', { status: 'open', taskStatus: 'working' }],
        ['handoff.accepted', 'agent-b', { status: 'accepted', taskStatus: 'working', assignee: 'agent-b' }],
        ['handoff.input_requested', 'agent-b', { status: 'accepted', taskStatus: 'input_required', keys: ['window'] }],
        // remaining: [] is left out of the answer, as every empty field below its top level is
        ['handoff.input_answered', 'operator', { status: 'accepted', taskStatus: 'working', keys: ['window'] }],
        ['handoff.completed', 'agent-b', { status: 'result_ready', taskStatus: 'completed' }],
        ['handoff.approved', 'operator', { status: 'approved', taskStatus: 'completed', reason: 'thanks' }],
      ];
      const trail = await call<EventPage>(a, 'handoff_events', { handoffId: id });
      expect(trail.events.map((e) => [e.kind, e.actor, e.data])).toEqual(
        expected.map(([kind, actor, data]) => [kind, actor, expect.objectContaining({ taskId: handoff.taskId, ...(data as object) })]),
      );
      expect(trail.events.every((e) => e.subject === id)).toBe(true);
      expect(trail.events.find((e) => e.kind === 'handoff.input_answered')?.data).not.toHaveProperty('remaining');
      const ids = trail.events.map((e) => e.id);
      expect([...ids].sort((x, y) => x - y)).toEqual(ids);
      const history = await call<EventPage>(op, 'workspace_history', { limit: 200 });
      expect(history.events.filter((e) => e.kind.startsWith('handoff.')).map((e) => e.kind)).toEqual(expected.map(([kind]) => kind));
    } finally {
      await a.close();
      await b.close();
      await op.close();
    }
  });

  it('refusals come back as tool errors with stable codes; bad arguments as INVALID_INPUT', async () => {
    const a = await connect('agent-a', 'modern');
    try {
      expect(await toolError(a, 'handoff_get', { handoffId: 'h_unknown' })).toMatch(/^NOT_FOUND: unknown handoff "h_unknown"/);
      expect(await toolError(a, 'handoff_create', { summary: 'x'.repeat(2001) })).toMatch(/^INVALID_INPUT: invalid arguments for handoff_create: summary: a summary is at most 2000 characters/);
      expect(await toolError(a, 'handoff_create', { summary: 's', surprise: true })).toMatch(/^INVALID_INPUT/);
    } finally {
      await a.close();
    }
  });
});
