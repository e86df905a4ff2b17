import type { EventView } from './handoff-dto';
import { str, tallyOf, type Tally } from './event-text';

/**
 * Events grouped by what they are about, with counts ("3 approved, 2 graphs failed"): Activity's grouped view
 * and the summary's counts. Pure: the renderer and `ce` group the same way.
 */
export const GROUPINGS = ['handoff', 'graph', 'agent'] as const;
export type Grouping = (typeof GROUPINGS)[number];

/** The handoff an event is about: handoff.* and workspace.* name it as subject; an agent's run or a shell may carry it. */
export function handoffOf(e: EventView): string | null {
  if (e.kind.startsWith('handoff.') || e.kind.startsWith('workspace.')) return e.subject;
  return str(e.data, 'handoffId');
}

/** The graph an event is about: graph.* (a stage's carries its graphId; a graph's task id is the graph's id). */
export function graphOf(e: EventView): string | null {
  if (e.kind.startsWith('graph.')) return str(e.data, 'graphId') ?? e.subject;
  if (e.kind.startsWith('task.') && str(e.data, 'operation') === 'graph.run') return e.subject;
  return null;
}

/** The agent (participant) an event is about: an agent's own events name it; otherwise whoever acted. */
export function agentOf(e: EventView): string | null {
  if (e.kind.startsWith('agent.')) return e.subject;
  return e.actor;
}

export function keyOf(e: EventView, by: Grouping): string | null {
  return by === 'handoff' ? handoffOf(e) : by === 'graph' ? graphOf(e) : agentOf(e);
}

export interface TallyCount {
  tally: Tally;
  count: number;
}

/** Counts by tally in first-seen order. */
export function countTallies(events: Iterable<EventView>): TallyCount[] {
  const counts = new Map<string, TallyCount>();
  for (const e of events) {
    const t = tallyOf(e);
    if (!t) continue;
    const c = counts.get(t.one);
    if (c) c.count++;
    else counts.set(t.one, { tally: t, count: 1 });
  }
  return [...counts.values()];
}

/** Counts as words: "3 approved, 2 graphs failed"; "" when nothing counts. */
export function countsText(counts: readonly TallyCount[]): string {
  return counts.map((c) => `${c.count} ${c.count === 1 ? c.tally.one : c.tally.many}`).join(', ');
}

export interface EventGroup {
  /** The handoff, graph or agent id ("" for events about none of them). */
  key: string;
  /** Its events in the order given (Activity: newest first). */
  events: EventView[];
  counts: TallyCount[];
}

/**
 * Groups events by handoff, graph or agent, in the order of each group's first event (newest first when the
 * events are); events about none of them land in one group keyed "", listed last.
 */
export function groupEvents(events: readonly EventView[], by: Grouping): EventGroup[] {
  const groups = new Map<string, EventView[]>();
  for (const e of events) {
    const key = keyOf(e, by) ?? '';
    const list = groups.get(key);
    if (list) list.push(e);
    else groups.set(key, [e]);
  }
  const out = [...groups.entries()].map(([key, list]) => ({ key, events: list, counts: countTallies(list) }));
  return [...out.filter((g) => g.key !== ''), ...out.filter((g) => g.key === '')];
}
