import { describe, expect, it } from 'vitest';
import { runKillRounds } from './kills';
import { report, sized } from './scale';

const ROUNDS = sized(200, 5);

describe('soak: random SIGKILLs under mixed load', () => {
  it(`${ROUNDS} kills: integrity ok, every acknowledged change present, nothing half-applied or running, no orphan, event ids increasing`, async () => {
    const t = await runKillRounds(ROUNDS);
    console.log(`[soak kills] ${JSON.stringify(t)}`);
    expect(t.details).toEqual([]);
    expect(t.rounds).toBe(ROUNDS);
    expect(t.ackedHandoffChanges).toBeGreaterThan(0);
    expect(t.ackedGraphs).toBeGreaterThan(0);
    const violations = Object.values(t.violations).reduce((a, b) => a + b, 0);
    report('random SIGKILLs, mixed load, both eras', `${t.rounds} kills; ${t.ackedHandoffChanges} acknowledged handoff changes and ${t.ackedGraphs} graph submissions checked after each restart; ${t.failedAtKill} calls cut by a kill; violations ${violations}`);
  }, sized(1_500_000, 120_000));
});
