import type { EventView, HandoffView } from '../../common/handoff-dto';
import { countsText, countTallies } from '../../common/event-groups';
import { describeEvent, handoffName, sectionOf, str, tallyOf, type NameOf } from '../../common/event-text';
import { checkWords, mergeWords, overlapWords } from '../../common/merge-preview-text';
import type { MergePreview } from '../../common/handoff-dto';
import type { SummaryItem, SummaryOpen, SummarySectionId } from '../../common/methods/summary';
import type { ShellView } from '../../common/methods/shells';

/** Items a section lists at most (the rest are counted in `more`). */
export const SECTION_LIMIT = 50;

/** One section's content before the summary orders and trims it. */
export interface SectionContent {
  items: SummaryItem[];
  /** Counts in words; computed from the items' events when absent. */
  counts?: string;
}

const WAITS = { approve: 'waits for your review', input: 'waits for your answer', addressed: 'is addressed to you' } as const;

/** Who reads the summary: its name, and whether it decides (approves, answers any handoff's questions). */
export interface Reader {
  name: string;
  approves: boolean;
}

/** Why a handoff waits on the reader, as the Inbox decides it (and only what the reader may do); null: it does not. */
export function waitOf(h: HandoffView, me: Reader): keyof typeof WAITS | null {
  if (h.status === 'result_ready' && me.approves) return 'approve';
  if (h.status === 'accepted' && h.task?.status === 'input_required' && (me.approves || h.owner === me.name)) return 'input';
  if (h.status === 'open' && h.to === me.name) return 'addressed';
  return null;
}

const names = (map: Map<string, string>): NameOf => (id) => map.get(id);

/** What waits for the person, oldest first: handoffs to review, input requests, handoffs for them, agents asking. */
export function waitingItems(handoffs: readonly HandoffView[], shells: readonly ShellView[], me: Reader): SummaryItem[] {
  const items: SummaryItem[] = [];
  for (const h of handoffs) {
    const why = waitOf(h, me);
    if (!why) continue;
    const who = why === 'addressed' ? h.owner : (h.assignee ?? h.owner);
    items.push({
      at: h.updatedAt,
      text: `${handoffName(h.id, () => h.summary)} from ${who} ${WAITS[why]}`,
      kind: `handoff.${why === 'approve' ? 'result_ready' : why === 'input' ? 'input_required' : 'open'}`,
      subject: h.id,
      tone: 'plain',
      host: null,
      detail: [],
      open: { screen: 'inbox', id: h.id },
    });
  }
  for (const s of shells) {
    // a terminal waits on the person who may answer it: its owner, or who operates the room
    if (!s.alive || s.status.state !== 'waiting') continue;
    const who = s.agent ? `agent ${s.agent.participant}` : `shell “${s.name}”`;
    items.push({
      at: s.status.since,
      text: `${who} waits on a question${s.status.reason ? `: “${s.status.reason.slice(0, 120)}”` : ''}`,
      kind: 'shell.waiting',
      subject: s.id,
      tone: 'plain',
      host: s.host ?? null,
      detail: [],
      open: { screen: 'terminals', id: s.id },
    });
  }
  return items.sort((a, b) => a.at.localeCompare(b.at));
}

const WAIT_COUNTS: [string, string, string][] = [
  ['handoff.result_ready', 'to review', 'to review'],
  ['handoff.input_required', 'question', 'questions'],
  ['handoff.open', 'for you', 'for you'],
  ['shell.waiting', 'agent asking', 'agents asking'],
];

/** What waits, counted by why: "2 to review, 1 question". */
export function waitingCounts(items: readonly SummaryItem[]): string {
  return WAIT_COUNTS.map(([kind, one, many]) => [items.filter((i) => i.kind === kind).length, one, many] as const)
    .filter(([n]) => n > 0)
    .map(([n, one, many]) => `${n} ${n === 1 ? one : many}`)
    .join(', ');
}

/** What is ready, counted by its checks: "2 ready: 1 checks passed, 1 checks failed". */
export function readyCounts(items: readonly SummaryItem[]): string {
  const by = (tone: SummaryItem['tone']) => items.filter((i) => i.tone === tone).length;
  const parts = [[by('good'), 'checks passed'], [by('bad'), 'checks failed or conflicts'], [by('plain'), 'no checks ran']] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return `${items.length} ready${said.length > 0 ? `: ${said.join(', ')}` : ''}`;
}

/** Where an event of a section opens. */
function openOf(e: EventView): SummaryOpen | null {
  const family = e.kind.split('.')[0];
  if (!e.subject) return null;
  if (family === 'handoff') return { screen: e.kind === 'handoff.completed' ? 'inbox' : 'history', id: e.subject };
  if (family === 'graph') return { screen: 'graphs', id: e.subject };
  const shellId = str(e.data, 'shellId');
  if (family === 'agent' && shellId) return { screen: 'terminals', id: shellId };
  return null;
}

/** The hosts a graph's stages ran on: graph id → stage id → SSH alias (stages on this machine are not listed). */
export type StageHosts = Map<string, Map<string, string>>;

/** Where each stage on a host ran, from the stages' own events (a stage on a host names it). */
export function stageHostsOf(events: Iterable<EventView>): StageHosts {
  const out: StageHosts = new Map();
  for (const e of events) {
    if (e.kind !== 'graph.stage') continue;
    const graphId = str(e.data, 'graphId');
    const stageId = str(e.data, 'stageId');
    const host = str(e.data, 'host');
    if (!graphId || !stageId || !host) continue;
    out.set(graphId, (out.get(graphId) ?? new Map<string, string>()).set(stageId, host));
  }
  return out;
}

/**
 * A graph that ended with stages on hosts: the hosts (its failed stages' when it failed, else all its stages'),
 * and a line per failed stage that ran on one ("unit failed on gpu-box"). Null: all of it ran on this machine.
 */
function graphHosts(e: EventView, stages: Map<string, string> | undefined): { host: string; detail: string[] } | null {
  if (!stages || stages.size === 0) return null;
  const raw = (e.data as { failed?: unknown } | null)?.failed;
  const failed = (Array.isArray(raw) ? raw : []).filter((id): id is string => typeof id === 'string' && stages.has(id));
  const hosts = new Set(failed.length > 0 ? failed.map((id) => stages.get(id) as string) : stages.values());
  return { host: [...hosts].join(', '), detail: failed.map((id) => `${id} failed on ${stages.get(id) ?? '?'}`) };
}

/**
 * The events of the window that fall in a section (each kind says which: common/event-text.ts), newest first,
 * as sentences; the host is the event's own, else the live shell's it names.
 */
export function eventItems(events: readonly EventView[], section: SummarySectionId, nameMap: Map<string, string>, hostOf: (shellId: string) => string | null, stageHosts: StageHosts = new Map()): SectionContent {
  const mine = events.filter((e) => sectionOf(e) === section);
  const items = mine
    .map((e): SummaryItem => {
      const tally = tallyOf(e);
      const shellId = str(e.data, 'shellId');
      const onHosts = e.kind === 'graph.ended' && e.subject ? graphHosts(e, stageHosts.get(e.subject)) : null;
      return {
        at: e.at,
        text: describeEvent(e, names(nameMap)),
        kind: e.kind,
        subject: e.subject,
        tone: tally?.bad ? 'bad' : tally ? 'good' : 'plain',
        host: str(e.data, 'host') ?? onHosts?.host ?? (shellId ? hostOf(shellId) : null),
        detail: onHosts?.detail ?? [],
        open: openOf(e),
      };
    })
    .reverse();
  // the bad outcomes first: they are what the person came to look for
  const counts = countTallies(mine).sort((a, b) => Number(b.tally.bad ?? false) - Number(a.tally.bad ?? false));
  return { items, counts: countsText(counts) };
}

/** A handoff ready to merge with what the review computes: its merge preview and its checks. */
export function readyItem(h: HandoffView, preview: MergePreview | null): SummaryItem {
  const tone = !preview ? 'plain' : preview.merge === 'conflicts' || preview.checks.state === 'failed' ? 'bad' : preview.checks.state === 'passed' ? 'good' : 'plain';
  return {
    at: h.updatedAt,
    text: `${handoffName(h.id, () => h.summary)} by ${h.assignee ?? h.owner}${h.workspace?.baseBranch ? ` into ${h.workspace.baseBranch}` : ''}`,
    kind: 'handoff.ready',
    subject: h.id,
    tone,
    host: null,
    detail: preview ? [mergeWords(preview), checkWords(preview), ...overlapWords(preview)] : ['the merge preview is worked out when you open it'],
    open: { screen: 'inbox', id: h.id },
  };
}
