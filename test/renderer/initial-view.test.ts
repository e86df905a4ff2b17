/** Where a graph's view starts: whole when readable at fit, else a readable zoom on what matters most. */
import { describe, expect, it } from 'vitest';
import type { GraphTopologyNode } from '../../src-main/common/methods/graphs';
import { chooseInitialView, fitZoom, focusNote, READABLE_ZOOM } from '../../src-renderer/src/features/graphs/initial-view';

const stage = (id: string, state: string, dependsOn: string[] = []) => ({ id, state, dependsOn }) as unknown as GraphTopologyNode;
const canvas = { width: 1000, height: 600 };
const small = { width: 800, height: 300 };
const huge = { width: 5000, height: 2200 };

describe('initial view of a graph', () => {
  it('shows a graph whole when it is readable at fit', () => {
    expect(fitZoom(small, canvas)).toBeGreaterThanOrEqual(READABLE_ZOOM);
    expect(chooseInitialView([stage('a', 'failed')], small, canvas)).toEqual({ kind: 'all' });
  });

  it('focuses a big graph on its first failed stage, else its running stages, else its first rank', () => {
    const stages = [stage('r0', 'completed'), stage('r1', 'running'), stage('x', 'failed', ['r0']), stage('y', 'failed', ['r0']), stage('z', 'pending', ['x'])];
    expect(chooseInitialView(stages, huge, canvas)).toEqual({ kind: 'focus', ids: ['x'], reason: 'failed' });
    expect(chooseInitialView(stages.filter((s) => s.state !== 'failed'), huge, canvas)).toEqual({ kind: 'focus', ids: ['r1'], reason: 'running' });
    const idle = Array.from({ length: 40 }, (_, i) => stage(`s${i}`, 'completed', i < 10 ? [] : ['s0']));
    expect(chooseInitialView(idle, huge, canvas)).toEqual({ kind: 'focus', ids: ['s0', 's1', 's2', 's3', 's4', 's5'], reason: 'first rank' });
  });

  it('says what it shows while focused, and nothing when whole', () => {
    expect(focusNote({ kind: 'focus', ids: ['x'], reason: 'failed' }, 500)).toBe('500 stages: showing the first failed stage at a readable size. The minimap shows the rest; "Whole graph" or zooming out shows every stage as a coloured box.');
    expect(focusNote({ kind: 'all' }, 3)).toBeNull();
    expect(focusNote({ kind: 'focus', ids: ['s0_0'], reason: 'running' }, 10_000)).toMatch(/^10,000 stages: showing the running stages at a readable size\./);
  });

  it('a canvas not measured yet never focuses (it is framed again once it has a size)', () => {
    expect(chooseInitialView([stage('a', 'failed')], huge, { width: 0, height: 0 })).toEqual({ kind: 'all' });
  });
});
