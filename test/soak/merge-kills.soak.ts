import { describe, expect, it } from 'vitest';
import { runMergeKills } from './merge-kills';
import { report, sized } from './scale';

const MERGES = sized(24, 4);
const ACCEPTS = sized(12, 2);
const FILES = sized(3000, 1000);

describe('soak: SIGKILLs during approve-and-merge and accept', () => {
  it(`${MERGES} merge kills and ${ACCEPTS} accept kills on ${FILES} changed files: no half-written checkout, no stale lock, nothing merged undecided or unacceptable`, async () => {
    const t = await runMergeKills(MERGES, ACCEPTS, FILES);
    console.log(`[soak merge kills] ${JSON.stringify(t)}`);
    expect(t.details).toEqual([]);
    expect(t).toMatchObject({ mergeKills: MERGES, acceptKills: ACCEPTS });
    const violations = Object.values(t.violations).reduce((a, b) => a + b, 0);
    const m = t.merge;
    const a = t.accept;
    report(
      'SIGKILLs during approve-and-merge and accept',
      `${t.mergeKills} kills during approve-and-merge of ${t.files} changed files into a checkout holding the person's own change and an ignored file (${m.untouched} before anything was written, ${m.rolledBack} rolled back at restart, ${m.finished} finished at restart, ${m.done} merged before the kill), ` +
        `${t.acceptKills} during accept (${a.untouched} before anything was made, ${a.cleared} leftovers cleared at restart, ${a.done} accepted before the kill); half-written checkouts, stale git locks, handoffs merged but undecided or unacceptable, unrecorded outcomes: violations ${violations}`,
    );
  }, sized(1_500_000, 300_000));
});
