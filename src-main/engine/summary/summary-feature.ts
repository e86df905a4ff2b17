import type { MethodInput, MethodName, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import type { EventView, HandoffView } from '../../common/handoff-dto';
import { namesFromEvents } from '../../common/event-text';
import { SUMMARY_SECTIONS, type RoomSummary, type SummarySection, type SummarySectionId } from '../../common/methods/summary';
import type { ShellView } from '../../common/methods/shells';
import type { EngineContext, Feature } from '../room/index';
import { eventItems, readyCounts, readyItem, SECTION_LIMIT, stageHostsOf, waitingCounts, waitingItems, type SectionContent } from './summary-sections';

/**
 * A read the summary makes as its caller (the same capability checks and visibility as the caller's own call),
 * inside the room_summary call already audited: engine.ts hands it (Engine.readInside), never an import.
 */
export type SummaryRead = <M extends MethodName>(caller: Caller, method: M, input: MethodInput<M>) => Promise<MethodOutputs[M]>;

/** What a contributor is handed: the window, the caller, its reads, and the window's events (oldest first). */
export interface SummaryWindow {
  caller: Caller;
  since: string;
  until: string;
  events: readonly EventView[];
  read: SummaryRead;
}

/**
 * A feature's part of the summary: the section it fills and its items. The events of a section need no
 * contributor (each kind names its section in common/event-text.ts); a contributor adds live state (spend
 * against an envelope, a schedule's next run). Its items join the section's events, newest first.
 */
export interface SummaryContributor {
  section: SummarySectionId;
  contribute(window: SummaryWindow): SectionContent | Promise<SectionContent>;
}

/** The default window: the last 8 hours. */
const DEFAULT_WINDOW_MS = 8 * 3_600_000;
/** Handoffs read for what waits and what is ready (newest first; a room rarely has this many live at once). */
const HANDOFFS_READ = 400;
/** Merge previews worked out per summary (each is a git merge-tree; the rest say "open it to review"). */
const PREVIEWS = 20;

async function everyPage<T>(page: (cursor?: string) => Promise<{ items: T[]; next: string | null }>, max: number): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const p = await page(cursor);
    out.push(...p.items);
    if (!p.next || out.length >= max) return out;
    cursor = p.next;
  }
}

/** room_summary: the morning summary, its sections filled by the room's reads and the features' contributors. */
export function summaryFeature(ctx: EngineContext, read: SummaryRead, contributors: readonly SummaryContributor[] = []): Feature<'room_summary'> {
  return {
    name: 'summary',
    handlers: {
      room_summary: async (caller, input): Promise<RoomSummary> => {
        const until = ctx.now();
        const since = input.since ? new Date(Date.parse(input.since)).toISOString() : new Date(Date.parse(until) - DEFAULT_WINDOW_MS).toISOString();
        // the room's history the caller may read (the ring: at most LIMITS.eventRingSize events), oldest first
        const all = await everyPage(async (cursor) => {
          const p = await read(caller, 'workspace_history', { limit: 200, ...(cursor ? { cursor } : {}) });
          return { items: p.events, next: p.more ? p.nextCursor : null };
        }, Number.MAX_SAFE_INTEGER);
        const events = all.filter((e) => e.at >= since);
        const nameMap = namesFromEvents(all);
        const partial = all.length === 0 ? false : (all[0]?.at ?? since) > since && (all[0]?.id ?? 1) > 1;
        const handoffs = await everyPage<HandoffView>(async (cursor) => {
          const p = await read(caller, 'handoff_list', { limit: 200, ...(cursor ? { cursor } : {}) });
          return { items: p.handoffs, next: p.nextCursor };
        }, HANDOFFS_READ);
        for (const h of handoffs) nameMap.set(h.id, h.summary);
        // a read-only room (the CLI while no room process runs) has no live shells
        const shells: ShellView[] = ctx.room.readOnly ? [] : (await read(caller, 'shell_list', {})).shells;
        // where a shell ran: the live shell's host, else what its agent's start recorded (its shell is gone once it ended)
        const startedOn = new Map<string, string>();
        for (const e of all) {
          const d = e.data as { shellId?: unknown; host?: unknown } | null;
          if (typeof d?.shellId === 'string' && typeof d.host === 'string') startedOn.set(d.shellId, d.host);
        }
        const hostOf = (shellId: string) => shells.find((s) => s.id === shellId)?.host ?? startedOn.get(shellId) ?? null;

        const content = new Map<SummarySectionId, SectionContent[]>();
        const add = (id: SummarySectionId, c: SectionContent) => content.set(id, [...(content.get(id) ?? []), c]);
        const reader = { name: caller.name, approves: caller.capabilities.includes('approve') };
        const waiting = waitingItems(handoffs, shells, reader);
        add('waiting', { items: waiting, counts: waitingCounts(waiting) });
        // a graph's stages on hosts: from its stages' events, which may be older than the window
        const stageHosts = stageHostsOf(all);
        for (const id of ['ended', 'spend', 'schedules'] as const) add(id, eventItems(events, id, nameMap, hostOf, stageHosts));
        // ready to merge: for who approves (the merge is theirs to make)
        const ready = handoffs.filter((h) => reader.approves && h.status === 'result_ready' && h.workspace !== null).sort((a, b) => a.updatedAt.localeCompare(b.updatedAt));
        const readyItems = await Promise.all(
          ready.map(async (h, i) => {
            if (i >= PREVIEWS) return readyItem(h, null);
            const preview = await read(caller, 'handoff_preview', { handoffId: h.id }).then((p) => p.preview, () => null);
            return readyItem(h, preview);
          }),
        );
        add('ready', { items: readyItems, counts: readyCounts(readyItems) });
        const window = { caller, since, until, events, read };
        for (const c of contributors) add(c.section, await c.contribute(window));
        return { since, until, sections: assemble(content), partial };
      },
    },
  };
}

/** The sections with content, in SUMMARY_SECTIONS' order; each trimmed to SECTION_LIMIT items. */
function assemble(content: Map<SummarySectionId, SectionContent[]>): SummarySection[] {
  const out: SummarySection[] = [];
  for (const { id, title } of SUMMARY_SECTIONS) {
    const parts = content.get(id) ?? [];
    const items = parts.flatMap((p) => p.items);
    if (items.length === 0) continue;
    // what waits and what is ready read oldest first; what happened, newest first
    if (id !== 'waiting' && id !== 'ready') items.sort((a, b) => b.at.localeCompare(a.at));
    const counts = parts.map((p) => p.counts ?? '').filter((c) => c !== '').join(', ');
    out.push({ id, title, counts: counts || `${items.length} ${id === 'waiting' ? 'waiting' : items.length === 1 ? 'item' : 'items'}`, items: items.slice(0, SECTION_LIMIT), more: Math.max(0, items.length - SECTION_LIMIT) });
  }
  return out;
}
