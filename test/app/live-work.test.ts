/** What the quit question and the tray item say about the work that would end (src-main/app/live-work.ts). */
import { describe, expect, it } from 'vitest';
import { describeLiveWork, isIdle, NO_LIVE_WORK, QUIT_BUTTON, quitPrompt } from '../../src-main/app/live-work';

describe('live work, in words', () => {
  it('names agents, counts shells and graphs, and says "nothing" when idle', () => {
    expect(describeLiveWork(NO_LIVE_WORK)).toBe('nothing');
    expect(isIdle(NO_LIVE_WORK)).toBe(true);
    expect(describeLiveWork({ agents: ['claude-code'], shells: 0, graphs: 0 })).toBe('1 agent (claude-code)');
    expect(describeLiveWork({ agents: [], shells: 2, graphs: 1 })).toBe('2 shells and 1 graph');
    expect(describeLiveWork({ agents: ['a', 'b'], shells: 1, graphs: 3 })).toBe('2 agents (a, b), 1 shell and 3 graphs');
    expect(describeLiveWork({ agents: ['a', 'b', 'c', 'd', 'e'], shells: 0, graphs: 0 })).toBe('5 agents (a, b, c, d, …)');
    expect(isIdle({ agents: [], shells: 0, graphs: 1 })).toBe(false);
  });

  it('asks with Cancel as the default and the Esc answer; only the first button quits', () => {
    const prompt = quitPrompt({ agents: ['worker'], shells: 1, graphs: 0 }, 'notes.md');
    expect(prompt.message).toBe('Quitting ends what runs in notes.md: 1 agent (worker) and 1 shell.');
    expect(prompt.buttons?.[QUIT_BUTTON]).toBe('Quit and end them');
    expect(prompt.cancelId).toBe(1);
    expect(prompt.defaultId).toBe(1);
    expect(prompt.detail).toMatch(/commonroom service install/);
  });
});
