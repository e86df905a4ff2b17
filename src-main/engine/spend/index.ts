/**
 * The spend face: tokens and cost the agent clients report over OpenTelemetry, per agent run, handoff and day,
 * and the envelopes that stop work at a ceiling (docs/spend.md). Owns the spend and envelopes tables. Like
 * agents, it acts on other features only through `Engine.call` (a closure engine.ts hands it).
 */

export { spendFeature, ENVELOPE_TICK_MS } from './spend-feature';
export { SPEND_EVENTS, describeSpendEvent } from './spend-events';
