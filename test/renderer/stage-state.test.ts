import { describe, expect, it } from 'vitest';
import { stateLabel } from '../../src-renderer/src/features/graphs/stage-state';

describe('a stage state in words', () => {
  it('reads "waiting to retry" between attempts, not "running"', () => {
    expect(stateLabel('running')).toBe('◔ running');
    expect(stateLabel('running', true)).toBe('◔ waiting to retry');
    expect(stateLabel('failed')).toBe('✕ failed');
  });
});
