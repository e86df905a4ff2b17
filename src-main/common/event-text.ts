import type { EventView } from './handoff-dto';
import { OVERNIGHT_KINDS } from './overnight-event-kinds';

/**
 * Events as people read them: one sentence per event ("claude-code-2 approved handoff “fix the parser”"), not a
 * field dump. Activity, the summary and `ce` print events through `describeEvent`; each kind's sentence, what it
 * counts as when Activity groups events, and the summary section it falls in live in one table (`EVENT_KINDS`).
 *
 * A feature that records a new kind adds ONE entry here (or spreads its own table into `EVENT_KINDS`): its
 * sentence, its tally ("approved", "graph failed") and, if the morning summary should show it, its section.
 * A kind without an entry still reads as a sentence (`fallbackText`), never as JSON.
 */

/** A subject's name as the reader knows it (a handoff's summary, a graph's name, a shell's name), else undefined. */
export type NameOf = (id: string) => string | undefined;

/** The morning summary's sections an event can fall in (the summary's own sections are listed in methods/summary.ts). */
export type EventSection = 'ended' | 'spend' | 'schedules';

/** What one event counts as when events are grouped: "approved" / "approved", "graph failed" / "graphs failed". */
export interface Tally {
  one: string;
  many: string;
  /** Counts as a bad outcome (failed, rejected, stalled): the group's counts show it as such. */
  bad?: boolean;
}

export interface EventKind {
  /** The sentence, without its time: who did what to which, and the one fact that matters. */
  text(e: EventView, name: NameOf): string;
  /** What it counts as in a group, an outcome; null or absent: it is not counted (a start, an accept, a token rotated). */
  tally?(e: EventView): Tally | null;
  /** The summary section it is listed in (null or absent: the summary leaves it out). */
  section?(e: EventView): EventSection | null;
}

export const str = (data: unknown, key: string): string | null => {
  const v = (data as Record<string, unknown> | null)?.[key];
  return typeof v === 'string' && v.length > 0 ? v : null;
};
const num = (data: unknown, key: string): number | null => {
  const v = (data as Record<string, unknown> | null)?.[key];
  return typeof v === 'number' ? v : null;
};
const cut = (text: string, max = 80): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const quoted = (text: string): string => `“${cut(text.replace(/\s+/g, ' ').trim())}”`;
const who = (e: EventView): string => e.actor ?? 'the room';
const same = (word: string): Tally => ({ one: word, many: word });
const bad = (one: string, many: string): Tally => ({ one, many, bad: true });

/** A handoff as a sentence names it: its summary in quotes, else its id. */
export function handoffName(id: string | null, name: NameOf): string {
  if (!id) return 'a handoff';
  const summary = name(id);
  return summary ? `handoff ${quoted(summary)}` : `handoff ${id}`;
}

/** A graph as a sentence names it: its name in quotes, else its id. */
export function graphName(id: string | null, name: NameOf): string {
  if (!id) return 'a graph';
  const n = name(id);
  return n ? `graph ${quoted(n)}` : `graph ${id}`;
}

const shellName = (e: EventView, name: NameOf): string => {
  const n = str(e.data, 'name') ?? (e.subject ? name(e.subject) : undefined);
  return n ? `shell ${quoted(n)}` : `shell ${e.subject ?? ''}`.trim();
};
const exitText = (data: unknown): string => {
  const code = num(data, 'exitCode');
  const signal = str(data, 'signal');
  return signal ? `killed by ${signal}` : code === null ? 'ended' : code === 0 ? 'exit 0' : `exit ${code}`;
};
const because = (data: unknown, key = 'reason'): string => {
  const r = str(data, key);
  return r ? `: ${quoted(r)}` : '';
};
const onHost = (data: unknown): string => {
  const host = str(data, 'host');
  return host ? ` on ${host}` : '';
};

const HANDOFF_KINDS: Record<string, EventKind> = {
  'handoff.created': {
    text: (e, n) => `${who(e)} made ${handoffName(e.subject, n)}${str(e.data, 'to') ? ` for ${str(e.data, 'to')}` : ''}`,
  },
  'handoff.accepted': { text: (e, n) => `${who(e)} accepted ${handoffName(e.subject, n)}` },
  'handoff.input_requested': { text: (e, n) => `${who(e)} asked for input on ${handoffName(e.subject, n)}` },
  'handoff.input_answered': { text: (e, n) => `${who(e)} answered the input request on ${handoffName(e.subject, n)}` },
  'handoff.completed': { text: (e, n) => `${who(e)} completed ${handoffName(e.subject, n)}: ready for review`, tally: () => same('completed'), section: () => 'ended' },
  'handoff.approved': {
    text: (e, n) => `${who(e)} approved ${handoffName(e.subject, n)}${str(e.data, 'into') ? ` and merged it into ${str(e.data, 'into')}` : ''}${because(e.data)}`, tally: () => same('approved'), section: () => 'ended' },
  'handoff.rejected': { text: (e, n) => `${who(e)} rejected ${handoffName(e.subject, n)}${because(e.data)}`, tally: () => bad('rejected', 'rejected'), section: () => 'ended' },
  'handoff.cancelled': { text: (e, n) => `${who(e)} cancelled ${handoffName(e.subject, n)}${because(e.data)}`, tally: () => same('cancelled'), section: () => 'ended' },
  'handoff.expired': { text: (e, n) => `${handoffName(e.subject, n)} expired before anyone finished it`, tally: () => bad('expired', 'expired'), section: () => 'ended' },
  'handoff.recaptured': { text: (e, n) => `${who(e)} captured the work of ${handoffName(e.subject, n)} again` },
  'handoff.task_deleted': { text: (e, n) => `the task of ${handoffName(e.subject, n)} was deleted (it ended a while ago)` },
  'workspace.kept': { text: (e, n) => `the worktree of ${handoffName(e.subject, n)} was kept${str(e.data, 'note') ? `: ${cut(str(e.data, 'note') ?? '')}` : ''}` },
  'workspace.removed': { text: (e, n) => `the worktree of ${handoffName(e.subject, n)} was removed` },
  'workspace.missing': { text: (e, n) => `the worktree of ${handoffName(e.subject, n)} is missing (its folder was deleted)`, tally: () => bad('worktree missing', 'worktrees missing') },
  'workspace.merge_recovered': { text: (e, n) => `a merge of ${handoffName(e.subject, n)} cut short by a restart was finished` },
  'workspace.accept_recovered': { text: (e, n) => `an accept of ${handoffName(e.subject, n)} cut short by a restart was finished` },
  'workspace.recovery_failed': { text: (e, n) => `the room could not finish a step of ${handoffName(e.subject, n)} after a restart${because(e.data, 'problem')}`, tally: () => bad('recovery failed', 'recoveries failed') },
  'workspace.leftovers_cleared': { text: (e, n) => `leftovers of an earlier accept of ${handoffName(e.subject, n)} were cleared` },
  'workspace.merged_undecided': {
    text: (e, n) => `${handoffName(e.subject, n)} merged into ${str(e.data, 'into') ?? 'its base'} but its approval was not recorded${because(e.data, 'problem')}`,
    tally: () => bad('merged undecided', 'merged undecided'),
  },
};

const stageOf = (e: EventView, n: NameOf): string => `stage ${str(e.data, 'stageId') ?? '?'} of ${graphName(str(e.data, 'graphId'), n)}`;
const graphEnded = (e: EventView, n: NameOf): string => {
  const state = str(e.data, 'state') ?? 'ended';
  const raw = (e.data as { failed?: unknown } | null)?.failed;
  const failed = Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
  const restarted = str(e.data, 'reason') === 'RUNNER_RESTARTED' ? ' (the room restarted under it)' : '';
  const stages = state === 'failed' && failed.length > 0 ? `: ${failed.slice(0, 3).join(', ')}${failed.length > 3 ? ` and ${failed.length - 3} more` : ''} failed` : '';
  const by = state === 'cancelled' && e.actor ? ` by ${e.actor}` : '';
  return `${graphName(e.subject, n)} ${state === 'completed' ? 'passed' : state}${by}${stages}${restarted}`;
};
const graphTally = (e: EventView): Tally | null => {
  const state = str(e.data, 'state');
  if (state === 'completed') return { one: 'graph passed', many: 'graphs passed' };
  if (state === 'failed') return bad('graph failed', 'graphs failed');
  if (state === 'cancelled') return { one: 'graph cancelled', many: 'graphs cancelled' };
  return null;
};

const GRAPH_KINDS: Record<string, EventKind> = {
  'graph.submitted': { text: (e, n) => `${who(e)} started ${graphName(e.subject, n)} (${num(e.data, 'stages') ?? '?'} stages)` },
  'graph.state': { text: (e, n) => `${graphName(e.subject, n)} is ${str(e.data, 'state') ?? 'changed'}` },
  'graph.ended': { text: graphEnded, tally: graphTally, section: () => 'ended' },
  'graph.stage': {
    text: (e, n) => {
      const state = str(e.data, 'state') ?? 'changed';
      const code = str(e.data, 'errorCode');
      const attempt = num(e.data, 'attempt');
      return `${stageOf(e, n)}${onHost(e.data)} ${state}${attempt && attempt > 1 ? ` (attempt ${attempt})` : ''}${code && state !== 'cancelled' ? ` (${code})` : ''}`;
    },
    tally: (e) => (str(e.data, 'state') === 'failed' ? bad('stage failed', 'stages failed') : null),
  },
  'graph.logs_spooled': { text: (e, n) => `the logs of ${graphName(e.subject, n)} were filed (${num(e.data, 'stages') ?? 0} stages)` },
};

const AGENT_KINDS: Record<string, EventKind> = {
  'agent.started': {
    text: (e, n) => `${who(e)} started agent ${e.subject ?? '?'} (${str(e.data, 'client') ?? 'a client'})${onHost(e.data)}${str(e.data, 'handoffId') ? ` on ${handoffName(str(e.data, 'handoffId'), n)}` : ''}`,
  },
  'agent.adopted': {
    text: (e) => `agent ${e.subject ?? '?'}${onHost(e.data)} was taken up again by the room after it restarted (the same run: its terminal went on there)`,
  },
  'agent.ended': {
    text: (e) => `agent ${e.subject ?? '?'}${onHost(e.data)} ${e.data && (e.data as { stopped?: unknown }).stopped ? `was stopped by ${who(e)}` : 'ended'} (${exitText(e.data)})`,
    tally: (e) => (num(e.data, 'exitCode') === 0 || (e.data as { stopped?: unknown } | null)?.stopped ? { one: 'agent ended', many: 'agents ended' } : bad('agent failed', 'agents failed')),
    section: () => 'ended',
  },
  'agent.completed_for': { text: (e, n) => `${who(e)} marked agent ${e.subject ?? '?'} done with ${handoffName(str(e.data, 'handoffId'), n)}` },
};

const SHELL_KINDS: Record<string, EventKind> = {
  'shell.opened': { text: (e, n) => `${who(e)} opened ${shellName(e, n)}${str(e.data, 'agent') ? ` for ${str(e.data, 'agent')}` : ''}${onHost(e.data)}` },
  'shell.ended': {
    text: (e, n) => `${shellName(e, n)} ${(e.data as { closed?: unknown } | null)?.closed ? `was closed by ${who(e)}` : 'ended'} (${exitText(e.data)})`,
  },
};

const TASK_KINDS: Record<string, EventKind> = {
  'task.created': { text: (e) => `${who(e)} started task ${e.subject ?? '?'}${str(e.data, 'operation') ? ` (${str(e.data, 'operation')})` : ''}` },
  'task.working': { text: (e) => `task ${e.subject ?? '?'} is working again` },
  'task.input_required': { text: (e) => `task ${e.subject ?? '?'} waits for input` },
  'task.completed': { text: (e) => `task ${e.subject ?? '?'} completed`, tally: () => ({ one: 'task completed', many: 'tasks completed' }) },
  'task.failed': { text: (e) => `task ${e.subject ?? '?'} failed`, tally: () => bad('task failed', 'tasks failed') },
  'task.cancelled': { text: (e) => `task ${e.subject ?? '?'} was cancelled` },
};

const PEOPLE_KINDS: Record<string, EventKind> = {
  'room.created': { text: () => 'the room was created' },
  'participant.added': {
    text: (e) => {
      const caps = (e.data as { capabilities?: unknown } | null)?.capabilities;
      const what = Array.isArray(caps) ? ` (${caps.join(', ')})` : str(e.data, 'role') ? ` as ${str(e.data, 'role')}` : '';
      return `${who(e)} ${(e.data as { readded?: unknown } | null)?.readded ? 'added again' : 'added'} participant ${e.subject ?? '?'}${what}`;
    },
  },
  'participant.revoked': { text: (e) => `${who(e)} revoked participant ${e.subject ?? '?'}` },
  'participant.token_rotated': { text: (e) => `${who(e)} gave ${e.subject ?? '?'} a new token (the old one stopped working)` },
  'participant.token_reissued': { text: (e) => `the room gave ${e.subject ?? '?'} a new token` },
  'participant.folders_changed': { text: (e) => `${who(e)} changed the folders ${e.subject ?? '?'} may write` },
};

/** Every kind the room records, described. Add a feature's kinds by spreading its table in here. */
export const EVENT_KINDS: Readonly<Record<string, EventKind>> = {
  ...HANDOFF_KINDS,
  ...GRAPH_KINDS,
  ...AGENT_KINDS,
  ...SHELL_KINDS,
  ...TASK_KINDS,
  ...PEOPLE_KINDS,
  // stalls and limits, envelopes, schedules, hosts (issue 43): their features' own sentences
  ...OVERNIGHT_KINDS,
};

/** A kind without an entry, still as words: "claude ran schedule.missed on nightly (state: failed)". */
export function fallbackText(e: EventView): string {
  const [family, what] = e.kind.split('.', 2);
  const verb = (what ?? e.kind).replace(/_/g, ' ');
  const state = str(e.data, 'state') ?? str(e.data, 'reason');
  return `${family ?? 'event'} ${e.subject ?? ''} ${verb}${e.actor ? ` (by ${e.actor})` : ''}${state ? `: ${cut(state, 60)}` : ''}`.replace(/\s+/g, ' ').trim();
}

const noNames: NameOf = () => undefined;

/** One event as a sentence a person reads. */
export function describeEvent(e: EventView, name: NameOf = noNames): string {
  const kind = Object.prototype.hasOwnProperty.call(EVENT_KINDS, e.kind) ? EVENT_KINDS[e.kind] : undefined;
  try {
    return kind ? kind.text(e, name) : fallbackText(e);
  } catch {
    return fallbackText(e); // an old row whose data has another shape reads as words all the same
  }
}

/** What an event counts as in a group (null: not counted). */
export function tallyOf(e: EventView): Tally | null {
  return (Object.prototype.hasOwnProperty.call(EVENT_KINDS, e.kind) ? EVENT_KINDS[e.kind]?.tally?.(e) : null) ?? null;
}

/** The summary section an event is listed in, or null. */
export function sectionOf(e: EventView): EventSection | null {
  return (Object.prototype.hasOwnProperty.call(EVENT_KINDS, e.kind) ? EVENT_KINDS[e.kind]?.section?.(e) : null) ?? null;
}

/** Names learnt from the events themselves: a handoff's summary (its creation), a graph's and a shell's name. */
export function namesFromEvents(events: Iterable<EventView>, into: Map<string, string> = new Map()): Map<string, string> {
  for (const e of events) {
    if (!e.subject) continue;
    const n = e.kind === 'handoff.created' ? str(e.data, 'summary') : e.kind === 'graph.submitted' || e.kind === 'shell.opened' ? str(e.data, 'name') : null;
    if (n) into.set(e.subject, n);
  }
  return into;
}
