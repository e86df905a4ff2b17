import { describe, expect, it } from 'vitest';
import { agentPatternProblem, compileAgentPattern } from '../../src-main/common/safe-pattern';

describe('agent patterns (RE2)', () => {
  it.each(['READY', '^ERROR: \\w+', 'ready on port \\d+', '(foo|bar) done', 'a+b*c{2,3}', '[(+*)]+', '(?:ab)+', '(\\d+)\\.(\\d+)', '(?i)ready', '(a+)+$', '(a|a)*b'])(
    'accepts %j',
    (p) => expect(agentPatternProblem(p)).toBeNull(),
  );

  it.each([
    ['(a)\\1', 'backreferences'],
    ['(?<n>a)\\k<n>', 'backreferences'],
    ['foo(?=bar)', 'lookahead'],
    ['foo(?!bar)', 'lookahead'],
    ['(?<=x)a', 'lookbehind'],
    ['(?<!x)a', 'lookbehind'],
    ['a{2000}', 'repeat count'],
    ['(unclosed', 'missing closing'],
  ])('refuses %j saying %s', (p, words) => {
    expect(agentPatternProblem(p)).toContain(words);
  });

  it('finds the first match, with ^ and $ at line ends when multiline', () => {
    const re = compileAgentPattern('^ready on (\\d+)$', { multiline: true });
    expect(re.find('starting\nready on 8080\nmore')).toEqual({ index: 9, text: 'ready on 8080' });
    expect(compileAgentPattern('^ready').find('x\nready')).toBeNull();
  });
});
