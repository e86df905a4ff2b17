import { RoomError } from '../../common/errors';
import { countedTokens } from '../../common/otlp-usage';
import { dollars, type EnvelopeView, type SpendRow, type SpendUsage } from '../../common/methods/spend';
import { dueInZone, type ScheduleRunView } from '../../common/methods/schedules';
import type { SummaryItem, SummaryOpen } from '../../common/methods/summary';
import type { SectionContent } from './summary-sections';
import type { SummaryContributor, SummaryWindow } from './summary-feature';

/**
 * The live parts of the summary's spend and schedules sections (their events, an envelope's stop or a schedule's
 * run or miss, land there by their kinds): what each live envelope has used of its limits, what each agent spent
 * in the window's days, and each schedule's runs in the window and its next due time. Both read through the
 * caller's own reads (spend_report, schedule_list, schedule_runs), so a caller sees only what those show it.
 */

/** A read the caller may not make (spend_report needs operate) leaves its part out; anything else is a fault. */
async function mayRead<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof RoomError && (error.code === 'FORBIDDEN' || error.code === 'NOT_FOUND')) return null;
    throw error;
  }
}

const ZERO: SpendUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costMicroUsd: 0 };
const sum = (rows: readonly SpendRow[]): SpendUsage =>
  rows.reduce((a, r) => ({ inputTokens: a.inputTokens + r.inputTokens, outputTokens: a.outputTokens + r.outputTokens, cacheReadTokens: a.cacheReadTokens + r.cacheReadTokens, cacheWriteTokens: a.cacheWriteTokens + r.cacheWriteTokens, costMicroUsd: a.costMicroUsd + r.costMicroUsd }), ZERO);
const tokens = (n: number) => `${n.toLocaleString('en')} token${n === 1 ? '' : 's'}`;
const duration = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : ms < 7_200_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 360_000) / 10} h`);

/** An envelope's target as a sentence names it, and where it opens. */
function targetOf(e: EnvelopeView, rows: readonly SpendRow[], events: SummaryWindow['events']): { name: string; open: SummaryOpen } {
  if (e.scope === 'agent') {
    // who runs in that terminal: what it reported, else its start (an agent that reported nothing yet)
    const started = events.find((v) => v.kind === 'agent.started' && (v.data as { shellId?: unknown } | null)?.shellId === e.target);
    const who = rows.find((r) => r.run === e.target)?.participant ?? started?.subject;
    return { name: `the agent run in terminal ${e.target}${who ? ` (${who})` : ''}`, open: { screen: 'terminals', id: e.target } };
  }
  if (e.scope === 'handoff') return { name: `the agents on handoff ${e.target}`, open: { screen: 'inbox', id: e.target } };
  return { name: `graph ${e.target}`, open: { screen: 'graphs', id: e.target } };
}

/** "the agent run in terminal sh_… (claude-code-2): $0.31 of $0.50, 12,000 of 100,000 tokens, wall-clock limit 2 h". */
function envelopeItem(e: EnvelopeView, rows: readonly SpendRow[], events: SummaryWindow['events'], at: string): SummaryItem {
  const used = sum(e.scope === 'agent' ? rows.filter((r) => r.run === e.target) : e.scope === 'handoff' ? rows.filter((r) => r.handoffId === e.target) : []);
  const { name, open } = targetOf(e, rows, events);
  const parts = [
    e.maxCostMicroUsd !== null ? `${dollars(used.costMicroUsd)} of ${dollars(e.maxCostMicroUsd)}` : null,
    e.maxTokens !== null ? `${countedTokens(used).toLocaleString('en')} of ${tokens(e.maxTokens)}` : null,
    e.maxWallMs !== null ? `wall-clock limit ${duration(e.maxWallMs)}` : null,
    e.maxIdleMs !== null ? `idle limit ${duration(e.maxIdleMs)}` : null,
  ].filter((p): p is string => p !== null);
  return { at, text: `envelope on ${name}: ${parts.join(', ')}`, kind: 'spend.envelope', subject: e.target, tone: 'plain', host: null, detail: [], open };
}

/** Spend so far against each live envelope, and what each agent spent on the window's days. */
export const spendContributor: SummaryContributor = {
  section: 'spend',
  async contribute(w: SummaryWindow): Promise<SectionContent> {
    const firstDay = w.since.slice(0, 10);
    const days = Math.min(366, Math.max(1, Math.round((Date.parse(w.until.slice(0, 10)) - Date.parse(firstDay)) / 86_400_000) + 1));
    // an envelope's run may have started before the window's days: its usage is read a week back at least
    const report = await mayRead(w.read(w.caller, 'spend_report', { days: Math.max(days, 7) }));
    if (!report) return { items: [] };
    const live = report.envelopes.filter((e) => e.state === 'active');
    const items = live.map((e) => envelopeItem(e, report.rows, w.events, w.until));
    const inWindow = report.rows.filter((r) => r.day >= firstDay);
    const byAgent = new Map<string, SpendRow[]>();
    for (const r of inWindow) byAgent.set(r.participant, [...(byAgent.get(r.participant) ?? []), r]);
    const when = days === 1 ? 'today' : `since ${firstDay}`;
    let total = 0;
    for (const [participant, rows] of byAgent) {
      const used = sum(rows);
      total += used.costMicroUsd;
      items.push({ at: rows.reduce((a, r) => (r.updatedAt > a ? r.updatedAt : a), ''), text: `${participant} spent ${dollars(used.costMicroUsd)} (${tokens(countedTokens(used))}) ${when}`, kind: 'spend.agent', subject: participant, tone: 'plain', host: null, detail: [], open: null });
    }
    const counts = [live.length > 0 ? `${live.length} envelope${live.length === 1 ? '' : 's'} live` : null, byAgent.size > 0 ? `${dollars(total)} spent ${when}` : null].filter(Boolean).join(', ');
    return { items, counts };
  },
};

/** Each schedule the caller sees: its runs and misses in the window, and when it is next due. */
export const schedulesContributor: SummaryContributor = {
  section: 'schedules',
  async contribute(w: SummaryWindow): Promise<SectionContent> {
    const list = await mayRead(w.read(w.caller, 'schedule_list', {}));
    if (!list) return { items: [] };
    const items: SummaryItem[] = [];
    for (const s of list.schedules) {
      const runs = (await mayRead(w.read(w.caller, 'schedule_runs', { scheduleId: s.id, limit: 500 })))?.runs ?? [];
      const mine = runs.filter((r: ScheduleRunView) => r.decidedAt >= w.since);
      const n = (outcome: ScheduleRunView['outcome']) => mine.filter((r) => r.outcome === outcome).length;
      const said = [['ran', n('ran')], ['skipped', n('skipped')], ['missed', n('missed')], ['failed', n('failed')]]
        .filter(([, k]) => (k as number) > 0)
        .map(([what, k]) => `${what} ${k === 1 ? 'once' : `${k} times`}`);
      const next = s.nextDueAt ? `next due ${dueInZone(s.nextDueAt, s.timeZone)}` : 'not due again';
      items.push({
        at: w.until,
        text: `schedule "${s.name}" (${s.cron}): ${said.length > 0 ? said.join(', ') : 'nothing due'} in this window; ${next}`,
        kind: 'schedule.next',
        subject: s.id,
        tone: n('missed') + n('failed') > 0 ? 'bad' : 'plain',
        host: null,
        detail: [],
        open: { screen: 'schedules', id: s.id },
      });
    }
    return { items, counts: items.length > 0 ? `${items.length} schedule${items.length === 1 ? '' : 's'} live` : '' };
  },
};
