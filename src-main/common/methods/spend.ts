import { z } from 'zod';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';

/**
 * Spend: the tokens and cost the agent clients the room starts report over OpenTelemetry (each run is configured
 * to send its metrics to the room's own OTLP endpoint, docs/spend.md), recorded per agent run, handoff and day;
 * and envelopes, the ceilings that stop an agent run, a handoff's agents or a graph at a safe point.
 */

/** What an envelope bounds: an agent run (its terminal), every agent run on a handoff, or a graph run. */
export type EnvelopeScope = 'agent' | 'handoff' | 'graph';
/** The limit an envelope stopped at. */
export type EnvelopeLimit = 'wall' | 'idle' | 'tokens' | 'cost';

/** Usage as the clients report it: tokens by kind and cost in micro-dollars (a whole number: no float drift). */
export interface SpendUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costMicroUsd: number;
}

/** One day's usage of one agent run (its terminal), with the handoff it worked on. Days are UTC dates. */
export interface SpendRow extends SpendUsage {
  day: string;
  participant: string;
  /** The agent run's terminal id, or "" for a participant the room did not start. */
  run: string;
  handoffId: string | null;
  /** The client that reported it ("claude-code", the OTLP service name). */
  client: string;
  updatedAt: string;
}

export interface EnvelopeView {
  id: string;
  scope: EnvelopeScope;
  /** The terminal id (agent), handoff id or graph id it bounds. */
  target: string;
  maxWallMs: number | null;
  maxIdleMs: number | null;
  /** Input and output tokens (cache reads and writes are shown, not counted). */
  maxTokens: number | null;
  maxCostMicroUsd: number | null;
  state: 'active' | 'stopped' | 'ended';
  /** What it stopped at, and the reading then ("cost: $0.52 of $0.50"). */
  stopped: { limit: EnvelopeLimit; text: string; at: string } | null;
  createdAt: string;
  createdBy: string;
}

/** The limits an envelope takes (envelope_set; agent_start's envelope). */
export const usageLimits = {
  maxWallMs: z.number().int().min(1).max(30 * 24 * 3600_000).optional().describe('wall-clock time from the start of the run, handoff or graph, in ms'),
  maxIdleMs: z.number().int().min(1).max(30 * 24 * 3600_000).optional().describe("agent runs: how long its client may sit idle or waiting at its prompt, in ms"),
  maxTokens: z.number().int().min(1).max(1e12).optional().describe('input plus output tokens the clients report'),
  maxCostUsd: z.number().positive().max(1e6).optional().describe('cost in US dollars the clients report'),
};

const envelopeScope = () => z.enum(['agent', 'handoff', 'graph']).describe('what it bounds: an agent run, every agent run on a handoff, or a graph');
const envelopeTarget = () => z.string().min(1).max(64).describe("the agent run's terminal id (sh_…), the handoff id (hf_…) or the graph id (gr_…)");

export const SPEND_METHODS = {
  spend_record: {
    description:
      "Record usage a client reports over OpenTelemetry, as the participant it runs as (the room's OTLP door calls it with the decoded metrics; an agent never needs to).",
    capability: 'read',
    input: lazily(() =>
      z
        .object({
          client: z.string().max(128),
          points: z
            .array(
              z
                .object({
                  metric: z.string().min(1).max(256),
                  value: z.number().finite(),
                  /** 'delta' or 'cumulative' (a cumulative value is counted from the last one seen for its series). */
                  temporality: z.enum(['delta', 'cumulative']),
                  series: z.string().max(4096),
                  attributes: z.record(z.string().max(128), z.string().max(512)),
                })
                .strict(),
            )
            .max(5000),
        })
        .strict(),
    ),
    mcpTool: false,
    unaudited: true,
  },
  spend_report: {
    description:
      'What agents spent: tokens and cost per day, agent run and handoff (as their clients report them over OpenTelemetry), totals per agent, and the envelopes with what each stopped at.',
    capability: 'operate',
    input: lazily(() =>
      z
        .object({
          days: z.number().int().min(1).max(366).optional().describe('how many days back, today included (default 7)'),
          participant: z.string().min(1).max(128).optional().describe("only this participant's spend"),
          handoffId: z.string().min(1).max(64).optional().describe('only the work on this handoff'),
        })
        .strict(),
    ),
    mcpTool: true,
    readOnly: true,
  },
  envelope_set: {
    description:
      'Put a ceiling on an agent run (target: its terminal id), on every agent run on a handoff (its id) or on a graph (its id): wall-clock, idle time, tokens or cost. ' +
      'At the limit the room stops the work at a safe point (the agent interrupted with its client\'s key, then stopped; the graph cancelled) and puts "stopped by its envelope" in the inbox. ' +
      'Setting one again on the same target replaces it.',
    capability: 'operate',
    input: lazily(() => z.object({ scope: envelopeScope(), target: envelopeTarget(), ...usageLimits }).strict()),
    mcpTool: true,
  },
  envelope_clear: {
    description: 'Take an envelope off its target: the work goes on unbounded.',
    capability: 'operate',
    input: lazily(() => z.object({ scope: envelopeScope(), target: envelopeTarget() }).strict()),
    mcpTool: true,
  },
} satisfies Record<string, MethodSpec>;

export interface SpendOutputs {
  spend_record: { recorded: number };
  spend_report: {
    rows: SpendRow[];
    /** Per participant over the days asked for. */
    totals: ({ participant: string } & SpendUsage)[];
    envelopes: EnvelopeView[];
  };
  envelope_set: { envelope: EnvelopeView };
  envelope_clear: { removed: boolean };
}

/** Micro-dollars as a person reads them: "$0.52". */
export function dollars(micro: number): string {
  const usd = micro / 1e6;
  return `$${usd === 0 || usd >= 0.01 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** One readable line for a spend event (common/spend-event-text.ts, shared with the event texts). */
export { describeSpendEvent } from '../spend-event-text';
