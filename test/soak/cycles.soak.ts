import { describe, expect, it } from 'vitest';
import { runCycles } from './cycles';
import { report, sized } from './scale';

const CYCLES = sized(1000, 50);

describe('soak: shell and stage spawn/kill cycles', () => {
  it(`${CYCLES} cycles (every fifth a resisting tree): no survivor, no fd, PTY or zombie growth`, async () => {
    const t = await runCycles(CYCLES);
    console.log(`[soak cycles] ${JSON.stringify(t)}`);
    expect(t.survivors).toBe(0);
    expect(t.zombies).toBe(0);
    expect(t.ptyGrowth).toBeLessThanOrEqual(0);
    expect(t.fdGrowth).toBeLessThanOrEqual(4);
    report('shell and stage spawn/kill cycles', `${t.cycles} cycles (${t.resisting} resisting trees: TERM ignored, setsid, double fork, nohup); survivors ${t.survivors}; fd growth ${t.fdGrowth}, PTY growth ${t.ptyGrowth}, zombies ${t.zombies}; cancel-to-last-process-dead p50 ${t.p50} ms, p99 ${t.p99} ms`);
  }, sized(1_200_000, 120_000));
});
