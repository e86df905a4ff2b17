import { describe, expect, it } from 'vitest';
import { unsafePatternReason } from '../../src-main/common/safe-pattern';

describe('unsafePatternReason', () => {
  it.each(['READY', '^ERROR: \\w+', 'ready on port \\d+', '(foo|bar) done', 'a+b*c{2,3}', '[(+*)]+', '(?:ab)+', '(\\d+)\\.(\\d+)', 'listening.*:(\\d{2,5})'])(
    'lets %j through',
    (p) => expect(unsafePatternReason(p)).toBeNull(),
  );

  it.each(['(a+)+$', '(a*)*b', '(?:a+)+', '((ab)*)+', '(a|aa)+(b+)*$x', '(x+x+)+y', '(\\w+\\s?)*$', '(a)\\1', '(?<n>a)\\k<n>'])('refuses %j', (p) => {
    expect(unsafePatternReason(p)).not.toBeNull();
  });
});
