import { describe, expect, it } from 'vitest';
import { conditionText, howLong, resumeText } from '../../src-main/common/agent-condition-text';

/** The words the Terminals and Agents screens and `ce agent list` give an agent's condition. */
describe('an agent’s condition in words', () => {
  const now = new Date(2026, 11, 5, 1, 0, 0); // the reader's own time
  const at = (h: number, m = 0, day = 5) => new Date(2026, 11, day, h, m).toISOString();

  it('says how long a stalled agent has been quiet', () => {
    expect(conditionText({ stalled: { since: at(0, 58), quietSince: at(0, 48) } }, now)).toBe('stalled 12 min');
    expect(howLong(45_000)).toBe('45 s');
    expect(howLong(125 * 60_000)).toBe('2 h 5 min');
    expect(howLong(76 * 3_600_000)).toBe('3 d 4 h');
  });

  it('says until when a limited agent waits, in the reader’s time, with a date past a day, and its countdown', () => {
    const limited = { since: at(0, 30), text: "You've hit your session limit", until: at(3), resumeAt: at(3) };
    expect(conditionText({ limited }, now)).toBe('limited until 03:00');
    expect(resumeText({ limited }, now)).toBe('resumes at 03:00 (in 2 h)');
    expect(conditionText({ limited: { ...limited, until: at(17, 0, 9) } }, now)).toBe('limited until Dec 9 17:00');
    expect(conditionText({ limited: { ...limited, until: null, resumeAt: null } }, now)).toBe('limited');
    expect(resumeText({ limited: { ...limited, resumeAt: null } }, now)).toBeNull();
    expect(conditionText(null, now)).toBeNull();
  });
});

describe('the watch’s events in words', () => {
  it('says each in a line, and nothing for other kinds', async () => {
    const { describeAgentWatchEvent, AGENT_WATCH_EVENTS } = await import('../../src-main/common/agent-watch-events');
    const line = (kind: string, data: Record<string, unknown>, actor: string | null = null) => describeAgentWatchEvent({ kind, subject: 'claude-code', actor, data });
    expect(line('agent.stalled', { quietMs: 600_000, policy: 'interrupt' })).toBe('claude-code stalled (quiet 10 min): it is interrupted');
    expect(line('agent.stall_interrupted', { key: 'Esc' })).toBe('claude-code was still stalled: the room pressed Esc');
    expect(line('agent.limit_resumed', { by: 'commonroom' })).toBe('claude-code was resumed after its usage limit (by the room, at the reset)');
    expect(line('agent.limited', { text: 'limit', until: null, policy: 'ask' })).toBe('claude-code hit a usage limit (“limit”): you are asked');
    for (const kind of AGENT_WATCH_EVENTS) expect(line(kind, {}, 'operator')).not.toBeNull();
    expect(line('agent.started', {})).toBeNull();
  });
});
