/**
 * The Inbox and Activity stores against a fake link: what waits on the person is derived from the engine's
 * handoffs, re-read on handoff hints (a burst folds into few reads), new arrivals are reported once; the
 * history reads on from its cursor and says when the room dropped older events. And the input-request form
 * turns a requested schema into fields and typed content.
 */
import { describe, expect, it } from 'vitest';
import type { EventPage, EventView, HandoffView } from '../../src-main/common/handoff-dto';
import { EngineClient } from '../../src-renderer/src/engine-client';
import { createActivityStore } from '../../src-renderer/src/stores/activity-store';
import { createInboxStore, type InboxItem } from '../../src-renderer/src/stores/inbox-store';
import { formContent, formFields } from '../../src-renderer/src/features/inbox/schema-form';
import { FakeUiTransport, settle } from './fake-ui-transport';

const handoff = (id: string, extra: Partial<HandoffView> = {}): HandoffView => ({
  id,
  status: 'accepted',
  owner: 'asker',
  to: 'worker',
  assignee: 'worker',
  summary: id,
  constraints: null,
  artifacts: [],
  result: null,
  inputAnswers: {},
  decision: null,
  cancellation: null,
  taskId: `t-${id}`,
  task: null,
  workspace: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});
const event = (id: number, kind: string): EventView => ({ id, at: '2026-01-01T00:00:00.000Z', kind, actor: 'asker', subject: null, data: {} });

function inboxRoom(handoffs: HandoffView[]) {
  const engine = { handoffs };
  const transport = new FakeUiTransport();
  transport.answer = (method) => (method === 'handoff_list' ? { handoffs: engine.handoffs } : {});
  const client = new EngineClient(transport);
  const arrived: InboxItem[][] = [];
  const inbox = createInboxStore(client, (items) => arrived.push(items));
  return { engine, transport, inbox, arrived };
}

describe('inbox store', () => {
  it('keeps what waits on the person, newest first: results, input requests, handoffs addressed to the operator, and the ones they took on', async () => {
    const task = { status: 'input_required' } as HandoffView['task'];
    const r = inboxRoom([
      handoff('h-working'),
      handoff('h-result', { status: 'result_ready', updatedAt: '2026-01-01T00:00:03.000Z' }),
      handoff('h-input', { task, updatedAt: '2026-01-01T00:00:02.000Z' }),
      handoff('h-mine', { status: 'open', to: 'operator', assignee: null, updatedAt: '2026-01-01T00:00:01.000Z' }),
      handoff('h-taken', { status: 'accepted', to: 'operator', assignee: 'operator', updatedAt: '2026-01-01T00:00:00.500Z' }),
      handoff('h-done', { status: 'approved' }),
    ]);
    r.transport.deliver({ t: 'hello', operator: 'operator', mcpUrl: 'http://127.0.0.1:1/mcp', room: 'r.md', version: '1' });
    r.transport.link('open');
    await settle();
    expect(r.inbox.getState().items.map((i) => [i.handoff.id, i.kind])).toEqual([
      ['h-result', 'approve'],
      ['h-input', 'input'],
      ['h-mine', 'addressed'],
      ['h-taken', 'doing'],
    ]);
    expect(r.arrived).toEqual([]);
  });

  it('re-reads on handoff hints only, a burst folding into at most two reads, and reports each arrival once', async () => {
    const r = inboxRoom([]);
    r.transport.link('open');
    await settle();
    const before = r.transport.calls('handoff_list').length;
    r.transport.deliver({ t: 'event', event: event(1, 'graph.state') });
    await settle();
    expect(r.transport.calls('handoff_list').length).toBe(before);

    r.engine.handoffs = [handoff('h-new', { status: 'result_ready' })];
    for (let i = 0; i < 5; i++) r.transport.deliver({ t: 'event', event: event(2 + i, 'handoff.completed') });
    await settle();
    expect(r.transport.calls('handoff_list').length - before).toBeLessThanOrEqual(2);
    expect(r.arrived.flat().map((i) => i.handoff.id)).toEqual(['h-new']);
    r.transport.deliver({ t: 'event', event: event(9, 'handoff.completed') });
    await settle();
    expect(r.arrived.flat().map((i) => i.handoff.id)).toEqual(['h-new']);
  });
});

describe('activity store', () => {
  it('reads on from its cursor and says when the room dropped older events', async () => {
    const pages: EventPage[] = [
      { events: [event(5, 'handoff.created'), event(6, 'handoff.accepted')], nextCursor: 'c6', more: false, oldestRetainedId: 5 },
      { events: [event(7, 'handoff.completed')], nextCursor: 'c7', more: false, oldestRetainedId: 5 },
    ];
    const transport = new FakeUiTransport();
    const afters: unknown[] = [];
    transport.answer = (method, input) => {
      afters.push((input as { cursor?: string }).cursor);
      return pages.shift();
    };
    const activity = createActivityStore(new EngineClient(transport));
    transport.link('open');
    await settle();
    expect(activity.getState().events.map((e) => e.id)).toEqual([5, 6]);
    expect(activity.getState().dropped).toBe(true);
    transport.deliver({ t: 'event', event: event(7, 'handoff.completed') });
    await settle();
    expect(afters).toEqual([undefined, 'c6']);
    expect(activity.getState().events.map((e) => e.id)).toEqual([5, 6, 7]);
  });
});

describe('input request form', () => {
  const schema = {
    type: 'object',
    properties: {
      colour: { type: 'string', enum: ['red', 'blue'] },
      count: { type: 'integer', title: 'Count', minimum: 1, maximum: 10 },
      urgent: { type: 'boolean' },
      note: { type: 'string', maxLength: 5 },
    },
    required: ['colour', 'count'],
  };

  it('makes a field per property, typed, with a required choice left unchosen', () => {
    const fields = formFields(schema);
    expect(fields.map((f) => [f.key, f.kind, f.required, f.initial])).toEqual([
      ['colour', 'enum', true, ''],
      ['count', 'integer', true, ''],
      ['urgent', 'boolean', false, false],
      ['note', 'string', false, ''],
    ]);
  });

  it('refuses what the schema refuses, by field, with the room\'s own check', () => {
    const fields = formFields(schema);
    const problems = (values: Record<string, string | boolean>) => {
      const built = formContent(schema, fields, values);
      return 'problems' in built ? built.problems : [];
    };
    expect(problems({})).toEqual([
      { field: 'colour', message: '“colour” is required' },
      { field: 'count', message: '“Count” is required' },
    ]);
    expect(problems({ colour: 'blue', count: '2.5' })).toEqual([{ field: 'count', message: '“Count” must be a whole number' }]);
    expect(problems({ colour: 'blue', count: '0' })).toEqual([{ field: 'count', message: '“Count” must be at least 1 (got 0)' }]);
    expect(problems({ colour: 'blue', count: '3', note: 'too long' })).toEqual([{ field: 'note', message: '“note” must be at most 5 characters (got 8)' }]);
    expect(formContent(schema, fields, { colour: 'blue', count: '3', urgent: true })).toEqual({ content: { colour: 'blue', count: 3, urgent: true } });
  });
});
