import type { SpendUsage } from './methods/spend';

/**
 * Which OpenTelemetry metrics carry usage, per client, and what one data point of each adds: the names and
 * attributes each CLI exports (docs/spend.md, checked against the installed CLIs). Only these are kept; every
 * other metric a client sends is dropped at the door.
 */

type UsageField = keyof SpendUsage;

interface UsageMetric {
  /** The attribute naming the kind of tokens, and what each of its values counts as (absent: one field). */
  by?: { attribute: string; fields: Record<string, UsageField> };
  field?: UsageField;
  /** What one unit of the metric is in the field's unit (USD → micro-dollars: 1e6). */
  scale: number;
}

export const USAGE_METRICS: Readonly<Record<string, UsageMetric>> = {
  // Claude Code: a counter per API request, delta temporality
  'claude_code.token.usage': { by: { attribute: 'type', fields: { input: 'inputTokens', output: 'outputTokens', cacheRead: 'cacheReadTokens', cacheCreation: 'cacheWriteTokens' } }, scale: 1 },
  'claude_code.cost.usage': { field: 'costMicroUsd', scale: 1e6 },
  // Codex: a histogram per turn (its sum counts); OpenAI counts cached input inside input
  'codex.turn.token_usage': { by: { attribute: 'token_type', fields: { input: 'inputTokens', output: 'outputTokens', cached_input: 'cacheReadTokens', cache_write_input: 'cacheWriteTokens' } }, scale: 1 },
  // Gemini CLI: a counter per API response; thoughts are billed as output, tool-use prompts as input
  'gemini_cli.token.usage': { by: { attribute: 'type', fields: { input: 'inputTokens', output: 'outputTokens', thought: 'outputTokens', cache: 'cacheReadTokens', tool: 'inputTokens' } }, scale: 1 },
};

/** The attributes the door passes on (the ones above name): the rest of a point's attributes stay out. */
export const USAGE_ATTRIBUTES: readonly string[] = ['type', 'token_type', 'model'];

export const isUsageMetric = (name: string): boolean => Object.prototype.hasOwnProperty.call(USAGE_METRICS, name);

export const NO_USAGE: SpendUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costMicroUsd: 0 });

/** What `amount` of `metric` (with its attributes) adds; null when it counts for nothing. */
export function usageOf(metric: string, attributes: Readonly<Record<string, string>>, amount: number): Partial<SpendUsage> | null {
  const spec = USAGE_METRICS[metric];
  if (!spec || !Number.isFinite(amount) || amount <= 0) return null;
  const field = spec.by ? spec.by.fields[attributes[spec.by.attribute] ?? ''] : spec.field;
  if (!field) return null;
  return { [field]: Math.round(amount * spec.scale) };
}

export function addUsage(a: SpendUsage, b: Partial<SpendUsage>): SpendUsage {
  return {
    inputTokens: a.inputTokens + (b.inputTokens ?? 0),
    outputTokens: a.outputTokens + (b.outputTokens ?? 0),
    cacheReadTokens: a.cacheReadTokens + (b.cacheReadTokens ?? 0),
    cacheWriteTokens: a.cacheWriteTokens + (b.cacheWriteTokens ?? 0),
    costMicroUsd: a.costMicroUsd + (b.costMicroUsd ?? 0),
  };
}

/** The tokens an envelope counts: input and output (cache reads and writes are shown, not counted). */
export const countedTokens = (u: SpendUsage): number => u.inputTokens + u.outputTokens;
