import type { EventView } from '../../../../src-main/common/handoff-dto';
import { describeEvent } from '../../../../src-main/common/event-text';

/** The screens an event can open (a subset of the sidebar's Screen; kept here so this module stays plain TypeScript). */
export type Screen = 'inbox' | 'history' | 'graphs' | 'terminals' | 'agents' | 'schedules';

/** How a handoff ends: its event opens History, where the decision and its reason stay readable. */
const HANDOFF_ENDINGS = new Set(['handoff.approved', 'handoff.rejected', 'handoff.cancelled', 'handoff.expired']);

const field = (data: unknown, key: string): string | null => {
  const v = (data as Record<string, unknown> | null)?.[key];
  return typeof v === 'string' && v.length > 0 ? v : null;
};

const ENVELOPE_SCREENS: Record<string, Screen> = { agent: 'terminals', handoff: 'inbox', graph: 'graphs' };

/** Where an event's subject lives in this window, by the family of its kind. */
export function screenOf(event: EventView): Screen | null {
  switch (event.kind.split('.')[0]) {
    case 'handoff':
      return HANDOFF_ENDINGS.has(event.kind) ? 'history' : 'inbox';
    case 'graph':
    case 'task':
      return 'graphs';
    case 'shell':
    case 'agent':
      return 'terminals';
    case 'participant':
      return 'agents';
    case 'schedule':
      return 'schedules';
    case 'envelope':
      // an envelope's target: an agent run's terminal, a handoff, a graph
      return ENVELOPE_SCREENS[field(event.data, 'scope') ?? ''] ?? null;
    default:
      return null;
  }
}

/** What opening an event shows: the screen, the object there, and for a stage's event its stage. */
export interface EventTarget {
  screen: Screen;
  id: string;
  stageId: string | null;
}


/** The object an event opens: a stage's graph (not the subject, which is the stage's task), an agent's terminal. */
export function targetOf(event: EventView): EventTarget | null {
  const screen = screenOf(event);
  if (!screen) return null;
  if (event.kind.startsWith('agent.')) {
    const shellId = field(event.data, 'shellId');
    return shellId ? { screen, id: shellId, stageId: null } : null;
  }
  if (event.kind.startsWith('graph.')) {
    const graphId = field(event.data, 'graphId') ?? event.subject;
    return graphId ? { screen, id: graphId, stageId: field(event.data, 'stageId') } : null;
  }
  return event.subject ? { screen, id: event.subject, stageId: null } : null;
}

/**
 * Names a person reads instead of ids, learnt from the events themselves (a handoff's summary from its
 * creation, a graph's name and who started it from its submission, a shell's name from its opening) and from
 * what the window already knows (`known`: the graphs and shells in its lists).
 */
export interface EventNames {
  names: Map<string, string>;
  graphOwners: Map<string, string>;
}

export function namesOf(events: readonly EventView[], known: { graphs?: { id: string; name: string | null; owner: string }[]; shells?: { id: string; name: string }[] } = {}): EventNames {
  const names = new Map<string, string>();
  const graphOwners = new Map<string, string>();
  for (const g of known.graphs ?? []) {
    if (g.name) names.set(g.id, g.name);
    graphOwners.set(g.id, g.owner);
  }
  for (const s of known.shells ?? []) names.set(s.id, s.name);
  for (const e of events) {
    if (!e.subject) continue;
    if (e.kind === 'handoff.created') {
      const summary = field(e.data, 'summary');
      if (summary) names.set(e.subject, summary);
    } else if (e.kind === 'graph.submitted') {
      const name = field(e.data, 'name');
      if (name) names.set(e.subject, name);
      if (e.actor) graphOwners.set(e.subject, e.actor);
    } else if (e.kind === 'shell.opened') {
      const name = field(e.data, 'name');
      if (name) names.set(e.subject, name);
    }
  }
  return { names, graphOwners };
}

/** Who an event is credited to: its actor; a graph's own progress to who started the graph; else the room. */
export function actorOf(event: EventView, names: EventNames): string {
  if (event.actor) return event.actor;
  if (event.kind.startsWith('graph.')) {
    const graphId = field(event.data, 'graphId') ?? event.subject;
    const owner = graphId ? names.graphOwners.get(graphId) : undefined;
    if (owner) return owner;
  }
  return 'room';
}

/** An event's subject as a person names it: "stage · graph" for a stage (the stage first: a long graph name is cut), the name for the rest, the id when none is known. */
export function subjectText(event: EventView, names: EventNames): string {
  if (!event.subject) return '';
  if (event.kind === 'graph.stage') {
    const graphId = field(event.data, 'graphId');
    const stageId = field(event.data, 'stageId');
    if (graphId && stageId) return `${stageId} · ${names.names.get(graphId) ?? graphId}`;
  }
  return names.names.get(event.subject) ?? event.subject;
}

/** Whether an event matches a text search: its kind, who, what (by name or id), its sentence or its data's text. */
export function matchesText(event: EventView, names: EventNames, needle: string): boolean {
  if (!needle) return true;
  const n = needle.toLowerCase();
  const hay = [event.kind, actorOf(event, names), event.subject ?? '', subjectText(event, names), describeEvent(event, (id) => names.names.get(id)), JSON.stringify(event.data ?? '')];
  return hay.some((h) => h.toLowerCase().includes(n));
}
