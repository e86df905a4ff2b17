import { describe, expect, it } from 'vitest';
import type { EventView } from '../../src-main/common/handoff-dto';
import { actorOf, matchesText, namesOf, subjectText, targetOf } from '../../src-renderer/src/features/activity/event-text';

let id = 0;
const ev = (kind: string, actor: string | null, subject: string | null, data: unknown = {}): EventView => ({ id: ++id, at: '2026-01-01T10:00:00.000Z', kind, actor, subject, data });

const submitted = ev('graph.submitted', 'agent-a', 'g_1', { name: 'nightly build', stages: 3 });
const stage = ev('graph.stage', null, 'g_1/test', { graphId: 'g_1', stageId: 'test', state: 'failed' });
const state = ev('graph.state', null, 'g_1', { state: 'failed' });
const created = ev('handoff.created', 'agent-b', 'hf_1', { summary: 'Write the release notes', to: null });
const shell = ev('shell.opened', 'agent-a', 'sh_1', { name: 'build shell', owner: 'agent-a' });
const started = ev('agent.started', 'operator', 'agent-a', { shellId: 'sh_2' });
const all = [submitted, stage, state, created, shell, started];

describe('Activity event text', () => {
  const names = namesOf(all);

  it("credits a graph's own progress to who started the graph, other room events to the room", () => {
    expect(actorOf(stage, names)).toBe('agent-a');
    expect(actorOf(state, names)).toBe('agent-a');
    expect(actorOf(ev('room.created', null, null), names)).toBe('room');
    // a graph the window knows from its list, when its submission left the ring
    expect(actorOf(ev('graph.state', null, 'g_9', {}), namesOf([], { graphs: [{ id: 'g_9', name: null, owner: 'agent-c' }] }))).toBe('agent-c');
  });

  it('names subjects by what a person reads, the id only when nothing else is known', () => {
    expect(subjectText(stage, names)).toBe('test · nightly build');
    expect(subjectText(state, names)).toBe('nightly build');
    expect(subjectText(created, names)).toBe('Write the release notes');
    expect(subjectText(shell, names)).toBe('build shell');
    expect(subjectText(ev('handoff.approved', 'operator', 'hf_unknown'), names)).toBe('hf_unknown');
  });

  it("opens a stage's event on its graph and stage, an agent's on its terminal, a handoff's ending in History", () => {
    expect(targetOf(stage)).toEqual({ screen: 'graphs', id: 'g_1', stageId: 'test' });
    expect(targetOf(state)).toEqual({ screen: 'graphs', id: 'g_1', stageId: null });
    expect(targetOf(created)).toEqual({ screen: 'inbox', id: 'hf_1', stageId: null });
    for (const ending of ['handoff.approved', 'handoff.rejected', 'handoff.cancelled', 'handoff.expired']) expect(targetOf(ev(ending, 'operator', 'hf_1'))).toEqual({ screen: 'history', id: 'hf_1', stageId: null });
    expect(targetOf(started)).toEqual({ screen: 'terminals', id: 'sh_2', stageId: null });
    expect(targetOf(ev('room.created', null, null))).toBeNull();
    // the overnight features' events: a schedule's on the Schedules screen, a stall or limit on the agent's terminal, an envelope's on its target
    expect(targetOf(ev('schedule.missed', null, 'sc_nightly01', { name: 'nightly', count: 1 }))).toEqual({ screen: 'schedules', id: 'sc_nightly01', stageId: null });
    expect(targetOf(ev('agent.stalled', null, 'agent-a', { shellId: 'sh_2', quietMs: 600_000, policy: 'tell' }))).toEqual({ screen: 'terminals', id: 'sh_2', stageId: null });
    expect(targetOf(ev('agent.limited', null, 'agent-a', { shellId: 'sh_2', text: 'limit reached', until: null, policy: 'ask' }))).toEqual({ screen: 'terminals', id: 'sh_2', stageId: null });
    expect(targetOf(ev('envelope.stopped', null, 'sh_2', { scope: 'agent', limit: 'cost' }))).toEqual({ screen: 'terminals', id: 'sh_2', stageId: null });
    expect(targetOf(ev('envelope.stopped', null, 'g_1', { scope: 'graph', limit: 'wall' }))).toEqual({ screen: 'graphs', id: 'g_1', stageId: null });
    expect(targetOf(ev('agent.watch_defaults_changed', 'operator', null, { stallMs: 600_000 }))).toBeNull();
  });

  it('matches the sentence a row reads, as the person reads it (not only its fields)', () => {
    expect(matchesText(stage, names, 'stage test of graph')).toBe(true);
    expect(matchesText(created, names, 'made handoff “Write')).toBe(true);
  });

  it('matches text in the kind, who, the name and the data, in any case', () => {
    expect(matchesText(stage, names, 'NIGHTLY')).toBe(true);
    expect(matchesText(stage, names, 'agent-a')).toBe(true);
    expect(matchesText(stage, names, 'failed')).toBe(true);
    expect(matchesText(created, names, 'nightly')).toBe(false);
  });
});
