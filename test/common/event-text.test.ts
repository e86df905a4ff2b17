/**
 * Events as sentences (common/event-text.ts): every kind the engine records has one, and grouping counts read as
 * words. The list of kinds is read from the engine's source, so a feature that records a new kind without a
 * sentence fails here (add its entry to EVENT_KINDS).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { countsText, countTallies, groupEvents } from '../../src-main/common/event-groups';
import { describeEvent, EVENT_KINDS, fallbackText, sectionOf, tallyOf } from '../../src-main/common/event-text';
import type { EventView } from '../../src-main/common/handoff-dto';
import { TASK_STATUSES } from '../../src-main/common/task-machine';

/** Literals that look like kinds but are not events: task operations, and the summary's own item kinds. */
const NOT_EVENTS = new Set(['graph.run', 'handoff.execute', 'handoff.ready', 'handoff.result_ready', 'handoff.input_required', 'handoff.open', 'shell.waiting', 'spend.envelope', 'spend.agent', 'schedule.next']);

function recordedKinds(): string[] {
  const root = path.resolve(__dirname, '../../src-main/engine');
  const kinds = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) {
        for (const m of fs.readFileSync(full, 'utf8').matchAll(/'((?:workspace|handoff|graph|agent|host|task|participant|room|shell|envelope|schedule|spend)\.[a-z_]+)'/g)) {
          if (!NOT_EVENTS.has(m[1] as string)) kinds.add(m[1] as string);
        }
      }
    }
  };
  walk(root);
  for (const status of TASK_STATUSES) kinds.add(`task.${status}`); // task.${status}, the task layer's own
  return [...kinds].sort();
}

const ev = (kind: string, over: Partial<EventView> = {}): EventView => ({ id: 1, at: '2026-12-05T03:00:00.000Z', kind, actor: 'claude-code-2', subject: 'hf_12', data: {}, ...over });

describe('readable event text', () => {
  it('has a sentence for every kind the engine records', () => {
    const kinds = recordedKinds();
    expect(kinds.length).toBeGreaterThan(35);
    const missing = kinds.filter((k) => !Object.prototype.hasOwnProperty.call(EVENT_KINDS, k));
    expect(missing, 'add these kinds to EVENT_KINDS in common/event-text.ts').toEqual([]);
    for (const kind of kinds) {
      // with the data it usually carries missing, it still reads as a sentence, never JSON
      const text = describeEvent(ev(kind));
      expect(text, kind).not.toMatch(/[{}[\]]|undefined|null|\[object/);
      expect(text.length, kind).toBeGreaterThan(8);
    }
  });

  it('names who did what to which, by name where the reader knows it', () => {
    const names = new Map([['hf_12', 'fix the parser'], ['gr_1', 'nightly']]);
    const n = (id: string) => names.get(id);
    expect(describeEvent(ev('handoff.approved', { data: { reason: 'looks right', into: 'main' } }), n)).toBe('claude-code-2 approved handoff “fix the parser” and merged it into main: “looks right”');
    expect(describeEvent(ev('handoff.approved'))).toBe('claude-code-2 approved handoff hf_12');
    expect(describeEvent(ev('graph.ended', { actor: null, subject: 'gr_1', data: { state: 'failed', failed: ['lint', 'unit'] } }), n)).toBe('graph “nightly” failed: lint, unit failed');
    expect(describeEvent(ev('graph.stage', { actor: null, subject: 'gr_1/lint', data: { graphId: 'gr_1', stageId: 'lint', state: 'failed', attempt: 2, errorCode: 'EXIT_NONZERO' } }), n)).toBe('stage lint of graph “nightly” failed (attempt 2) (EXIT_NONZERO)');
    expect(describeEvent(ev('agent.ended', { actor: 'claude-code-2', subject: 'claude-code-2', data: { exitCode: 1, host: 'gpu-box' } }))).toBe('agent claude-code-2 on gpu-box ended (exit 1)');
    expect(describeEvent(ev('shell.opened', { actor: 'operator', subject: 'sh_1', data: { name: 'build', agent: null } }))).toBe('operator opened shell “build”');
    // a long summary is cut, on one line
    const long = describeEvent(ev('handoff.created', { data: { summary: 'x'.repeat(300) } }), () => 'a\nvery long '.repeat(30));
    expect(long.length).toBeLessThan(140);
    expect(long).not.toContain('\n');
  });

  it("reads the overnight features' events in their own sentences, with their tallies and sections", () => {
    const stalled = ev('agent.stalled', { actor: null, subject: 'claude-code-2', data: { shellId: 'sh_3', quietMs: 720_000, policy: 'interrupt' } });
    expect(describeEvent(stalled)).toBe('claude-code-2 stalled (quiet 12 min): it is interrupted');
    expect([tallyOf(stalled)?.one, sectionOf(stalled)]).toEqual(['stalled', 'ended']);
    const limited = ev('agent.limited', { actor: null, subject: 'codex-1', data: { shellId: 'sh_4', text: "You've hit your usage limit", until: null, policy: 'ask' } });
    expect(describeEvent(limited)).toBe('codex-1 hit a usage limit (“You\'ve hit your usage limit”): you are asked');
    expect([tallyOf(limited)?.bad, sectionOf(limited)]).toEqual([true, 'ended']);
    const stopped = ev('envelope.stopped', { actor: null, subject: 'sh_3', data: { scope: 'agent', limit: 'cost', text: 'claude-code-2 (terminal sh_3) spent $0.52 of its $0.50' } });
    expect(describeEvent(stopped)).toBe('stopped by its envelope: cost — claude-code-2 (terminal sh_3) spent $0.52 of its $0.50');
    expect(sectionOf(stopped)).toBe('spend');
    const ran = ev('schedule.ran', { actor: 'operator', subject: 'sc_1', data: { name: 'nightly', timeZone: 'UTC', dueAt: '2026-12-05T03:00:00.000Z', late: false, graphId: 'gr_9' } });
    expect(describeEvent(ran)).toBe('schedule "nightly" ran for Sat, 5 Dec 2026, 03:00 (UTC): graph gr_9');
    expect([tallyOf(ran)?.one, sectionOf(ran)]).toEqual(['schedule ran', 'schedules']);
    expect(sectionOf(ev('schedule.added'))).toBeNull();
    expect(describeEvent(ev('host.unreachable', { actor: null, subject: 'gpu-box', data: { error: 'ssh: connect timed out' } }))).toBe('host gpu-box is unreachable (ssh: connect timed out): its shells and stages go on there, unknown here until it is back');
    expect(describeEvent(ev('host.output_lost', { actor: null, subject: 'gpu-box', data: { shellId: 'sh_1', bytes: 4096 } }))).toBe("host gpu-box: 4096 bytes of shell sh_1's output were lost before they reached the room (the host's scrollback moved on while it was away); readers are told where");
    // a stage on a host says which
    expect(describeEvent(ev('graph.stage', { actor: null, subject: 'gr_1/unit', data: { graphId: 'gr_1', stageId: 'unit', state: 'failed', attempt: 1, host: 'gpu-box', errorCode: 'EXIT_NONZERO' } }))).toBe('stage unit of graph gr_1 on gpu-box failed (EXIT_NONZERO)');
  });

  it('reads a kind it does not know as words, and survives data of another shape', () => {
    expect(fallbackText(ev('schedule.caught_up', { subject: 'nightly', data: { state: 'ran' } }))).toBe('schedule nightly caught up (by claude-code-2): ran');
    expect(describeEvent(ev('graph.ended', { data: { failed: 'not a list', state: 7 } }))).toBe('graph hf_12 ended');
  });

  it('groups by handoff, graph and agent with counts in words', () => {
    const events = [
      ev('handoff.approved', { subject: 'hf_1' }),
      ev('handoff.approved', { subject: 'hf_2' }),
      ev('handoff.rejected', { subject: 'hf_3' }),
      ev('graph.ended', { subject: 'gr_1', actor: null, data: { state: 'failed', failed: ['a'] } }),
      ev('graph.ended', { subject: 'gr_2', actor: null, data: { state: 'failed', failed: ['a'] } }),
      ev('graph.stage', { subject: 'gr_2/a', actor: null, data: { graphId: 'gr_2', stageId: 'a', state: 'running' } }),
      ev('handoff.approved', { subject: 'hf_4' }),
    ];
    expect(countsText(countTallies(events))).toBe('3 approved, 1 rejected, 2 graphs failed');
    const byGraph = groupEvents(events, 'graph');
    expect(byGraph.map((g) => [g.key, g.events.length])).toEqual([['gr_1', 1], ['gr_2', 2], ['', 4]]);
    expect(countsText(byGraph[1]?.counts ?? [])).toBe('1 graph failed');
    expect(groupEvents(events, 'handoff').map((g) => g.key)).toEqual(['hf_1', 'hf_2', 'hf_3', 'hf_4', '']);
    expect(groupEvents(events, 'agent').map((g) => [g.key, g.events.length])).toEqual([['claude-code-2', 4], ['', 3]]);
  });
});
