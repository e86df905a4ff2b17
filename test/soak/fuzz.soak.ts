import { describe, expect, it } from 'vitest';
import { runFuzz } from './fuzz';
import { report, sized } from './scale';

const PER_TOOL = sized(10_000, 100);
const FRAMING = sized(10_000, 200);
const REDOS = sized(2_000, 50);

describe('soak: property-based fuzzing', () => {
  it(`${PER_TOOL} argument objects per tool, ${FRAMING} raw JSON-RPC bodies, ${REDOS} agent patterns: every one answered cleanly`, async () => {
    const t = await runFuzz(PER_TOOL, FRAMING, REDOS);
    console.log(`[soak fuzz] ${JSON.stringify(t)}`);
    expect(t.problems).toEqual([]);
    report('fast-check fuzz (tool arguments, JSON-RPC framing, ReDoS corpus)', `${t.casesPerTool} cases × ${t.tools} tools, ${t.framing} raw bodies, ${t.redos} shell-wait patterns + ReDoS corpus as readiness; problems ${t.problems.length}; max event-loop delay ${t.maxLagMs} ms`);
  }, sized(1_500_000, 180_000));
});
