import { describe, expect, it } from 'vitest';
import type { GraphTopologyNode } from '../../src-main/common/methods/graphs';
import { isFailure, matchingStages, nextStage } from '../../src-renderer/src/features/graphs/graph-find';
import { attemptsIn, logLines } from '../../src-renderer/src/features/graphs/log-lines';

const stage = (id: string, state: GraphTopologyNode['state'], command: string | string[] = 'true'): GraphTopologyNode => ({ id, state, command, dependsOn: [], dependents: [], errorCode: null, ready: false, retrying: false, waitingOn: null });
const stages = [stage('build', 'completed', 'make all'), stage('test-a', 'failed', ['npm', 'test']), stage('test-b', 'completed'), stage('lint', 'failed', 'eslint .'), stage('pack', 'skipped')];

describe('finding stages in a big graph', () => {
  it('matches text in the id or the command, and a state; nothing asked picks nothing out', () => {
    expect(matchingStages(stages, { text: '', state: '' })).toBeNull();
    expect([...(matchingStages(stages, { text: 'TEST', state: '' }) ?? [])]).toEqual(['test-a', 'test-b']);
    expect([...(matchingStages(stages, { text: 'npm', state: '' }) ?? [])]).toEqual(['test-a']);
    expect([...(matchingStages(stages, { text: 'test', state: 'failed' }) ?? [])]).toEqual(['test-a']);
    expect(matchingStages(stages, { text: 'nothing', state: '' })?.size).toBe(0);
  });

  it('goes to the next failure after the current stage, wrapping round', () => {
    expect(nextStage(stages, null, isFailure)).toBe('test-a');
    expect(nextStage(stages, 'test-a', isFailure)).toBe('lint');
    expect(nextStage(stages, 'lint', isFailure)).toBe('test-a');
    expect(nextStage(stages.filter((s) => !isFailure(s)), null, isFailure)).toBeNull();
  });
});

describe("a stage's log as lines", () => {
  const rec = (seq: number, stream: 'stdout' | 'stderr' | 'runner', text: string) => ({ seq, stream, at: '', text });
  it('numbers lines across records, joins a line split over records, and tells the attempts apart', () => {
    const lines = logLines([
      rec(1, 'runner', '[attempt 1 of 2: npm test]\n'),
      rec(2, 'stdout', 'one\ntw'),
      rec(3, 'stdout', 'o\n'),
      rec(4, 'stderr', 'broke\n'),
      rec(5, 'runner', '[attempt 2 of 2: npm test]\n'),
      rec(6, 'stdout', 'again'),
    ]);
    expect(lines.map((l) => [l.n, l.stream, l.text, l.attempt])).toEqual([
      [1, 'runner', '[attempt 1 of 2: npm test]', 1],
      [2, 'stdout', 'one', 1],
      [3, 'stdout', 'two', 1],
      [4, 'stderr', 'broke', 1],
      [5, 'runner', '[attempt 2 of 2: npm test]', 2],
      [6, 'stdout', 'again', 2],
    ]);
    expect(attemptsIn(lines)).toEqual([1, 2]);
  });
});
