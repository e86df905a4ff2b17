/**
 * How a feature plugs into the morning summary (engine/summary/): a kind of event lands in its section by its
 * entry in common/event-text.ts, and a SummaryContributor adds live items to a section; sections are listed only
 * with content and always in SUMMARY_SECTIONS' order. The room's reads are canned here: the real ones are tested
 * through the MCP door (test/mcp/room-summary.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../../src-main/common/dto';
import type { EventView } from '../../../src-main/common/handoff-dto';
import type { RoomSummary } from '../../../src-main/common/methods/summary';
import type { EngineContext } from '../../../src-main/engine/room/index';
import { summaryFeature, type SummaryContributor, type SummaryRead } from '../../../src-main/engine/summary/index';

const NOW = '2026-12-05T08:00:00.000Z';
const caller: Caller = { name: 'operator', role: 'operator', capabilities: ['read', 'write', 'approve', 'operate'] };
const ev = (id: number, at: string, kind: string, subject: string, data: Record<string, unknown> = {}): EventView => ({ id, at, kind, actor: null, subject, data });

function summarize(events: EventView[], contributors: SummaryContributor[] = [], since?: string): Promise<RoomSummary> {
  const ctx = { now: () => NOW, room: { readOnly: true } } as unknown as EngineContext;
  const read = (async (_caller: Caller, method: string) => {
    if (method === 'workspace_history') return { events, nextCursor: 'x', more: false, oldestRetainedId: events[0]?.id ?? null };
    if (method === 'handoff_list') return { handoffs: [], nextCursor: null };
    throw new Error(`not read here: ${method}`);
  }) as SummaryRead;
  const feature = summaryFeature(ctx, read, contributors);
  return Promise.resolve(feature.handlers.room_summary(caller, since ? { since } : {}, {}));
}

describe('the summary seam', () => {
  it('lists a section only with content, in the fixed order, whichever order its parts arrive in', async () => {
    const nightly = { scheduleId: 'sc_nightly01', name: 'nightly', owner: 'operator', timeZone: 'UTC', kind: 'graph', catchUp: 'skip' };
    // the events as the features record them (schedules, spend, the agent watch, agents, graphs on a host)
    const events = [
      ev(1, '2026-12-05T01:00:00.000Z', 'schedule.missed', 'sc_nightly01', { ...nightly, count: 2, atLeast: false, first: '2026-12-04T23:00:00.000Z', last: '2026-12-05T00:00:00.000Z', whileDown: true, caughtUp: false }),
      ev(2, '2026-12-05T02:00:00.000Z', 'envelope.stopped', 'sh_3', { scope: 'agent', limit: 'cost', text: 'claude-code-2 (terminal sh_3) spent $0.52 of its $0.50', participants: ['claude-code-2'] }),
      ev(3, '2026-12-05T03:00:00.000Z', 'agent.stalled', 'claude-code-2', { shellId: 'sh_3', quietMs: 600_000, policy: 'tell' }),
      ev(4, '2026-12-04T20:00:00.000Z', 'agent.limited', 'codex-1', { shellId: 'sh_9', text: 'usage limit reached', until: null, policy: 'ask' }), // before the window
      ev(5, '2026-12-04T21:00:00.000Z', 'agent.started', 'codex-1', { shellId: 'sh_9', host: 'build-box' }),
      ev(6, '2026-12-05T04:00:00.000Z', 'agent.ended', 'codex-1', { shellId: 'sh_9', exitCode: 1 }),
      // a graph whose stage ran on a host: the stage's event names it, the graph's ending does not
      ev(7, '2026-12-04T23:30:00.000Z', 'graph.stage', 'gr_1/unit', { graphId: 'gr_1', stageId: 'unit', state: 'running', attempt: 1, host: 'gpu-box' }),
      ev(8, '2026-12-05T05:00:00.000Z', 'graph.stage', 'gr_1/unit', { graphId: 'gr_1', stageId: 'unit', state: 'failed', attempt: 1, host: 'gpu-box', errorCode: 'EXIT_NONZERO' }),
      ev(9, '2026-12-05T05:00:01.000Z', 'graph.ended', 'gr_1', { state: 'failed', failed: ['unit'] }),
    ];
    const spend: SummaryContributor = {
      section: 'spend',
      contribute: (w) => ({ items: [{ at: w.until, text: 'claude-code-2 spent $4.10 of its $5.00 envelope', kind: 'spend.envelope', subject: 'claude-code-2', tone: 'plain', host: null, detail: [], open: null }], counts: '1 envelope near its limit' }),
    };
    const summary = await summarize(events, [spend]);
    expect(summary.since).toBe('2026-12-05T00:00:00.000Z'); // the last 8 hours
    expect(summary.sections.map((s) => s.id)).toEqual(['ended', 'spend', 'schedules']);
    const [ended, spent, schedules] = summary.sections;
    // an ended agent's host: what its start recorded, its shell being gone
    // an ended agent's host: what its start recorded, its shell being gone; a graph's: its failed stage's
    expect(ended?.items.map((i) => [i.text, i.host, i.tone, i.detail])).toEqual([
      ['graph gr_1 failed: unit failed', 'gpu-box', 'bad', ['unit failed on gpu-box']],
      ['agent codex-1 ended (exit 1)', 'build-box', 'bad', []],
      ['claude-code-2 stalled (quiet 10 min): you are told', null, 'bad', []],
    ]);
    expect(ended?.counts).toBe('1 stalled, 1 agent failed, 1 graph failed');
    expect(spent?.items.map((i) => i.text)).toEqual(['claude-code-2 spent $4.10 of its $5.00 envelope', 'stopped by its envelope: cost — claude-code-2 (terminal sh_3) spent $0.52 of its $0.50']);
    expect(spent?.counts).toBe('1 stopped by its envelope, 1 envelope near its limit');
    expect(schedules?.items.map((i) => i.text)).toEqual(['schedule "nightly" missed 2 due times while the room was not running (from Fri, 4 Dec 2026, 23:00 (UTC) to Sat, 5 Dec 2026, 00:00 (UTC)); not run: its catch-up policy is skip']);
    expect(schedules?.counts).toBe('1 missed');
  });

  it('says nothing when nothing happened, and leaves out a contributor with nothing to add', async () => {
    const empty: SummaryContributor = { section: 'schedules', contribute: () => ({ items: [] }) };
    expect((await summarize([], [empty])).sections).toEqual([]);
  });
});
