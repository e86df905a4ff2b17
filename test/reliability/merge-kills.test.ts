import { describe, expect, it } from 'vitest';
import { runMergeKills } from '../soak/merge-kills';

/**
 * The small version of the soak's merge and accept kills (test/soak/merge-kills.soak.ts: the full counts and
 * RELIABILITY.md's figures): a real `commonroom serve` SIGKILLed at random moments of approve-and-merge and of
 * accept on a repository of 1,000 files, restarted, and the person's checkout and the room checked.
 */
describe('SIGKILL during approve-and-merge and accept', () => {
  it('4 merge kills and 2 accept kills: no half-written checkout, no stale lock, no handoff merged but undecided or unacceptable', async () => {
    const t = await runMergeKills(4, 2, 1000);
    console.log(`[merge kills] ${JSON.stringify(t)}`);
    expect(t.details).toEqual([]);
    expect(t).toMatchObject({ mergeKills: 4, acceptKills: 2 });
  }, 300_000);
});
