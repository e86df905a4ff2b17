import type { Engine } from '../engine/engine';
import type { ExtraTool } from '../mcp/surface/extra-tools';
import { jobFixtureTools } from './fixture-tools';
import { protocolFixtureTools } from './protocol-fixtures';

/**
 * The test-only entry point: every conformance fixture tool, for `startRunner({ extraTools: testFixtureTools })`.
 * Built as its own file (out/main/test-fixtures.js) that `commonroom serve --test-fixtures` loads on demand;
 * no production module imports it.
 */
export function testFixtureTools(engine: Engine): ExtraTool[] {
  return [...jobFixtureTools(engine), ...protocolFixtureTools(engine)];
}
