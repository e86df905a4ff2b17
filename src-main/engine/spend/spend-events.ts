import type { EventRule } from '../room/index';

/** Envelopes and their stops are the person's: read by those who operate the room. */
export const SPEND_EVENTS: EventRule = { prefix: 'envelope.', visible: '@operate = 1' };

/**
 * One readable line for a spend event, for where events are described for people (Activity, the summary):
 * "stopped by its envelope: cost — claude-code (terminal sh-…) spent $0.52 of its $0.50". Null: not one of these.
 */
export function describeSpendEvent(event: { kind: string; actor: string | null; subject: string | null; data?: unknown }): string | null {
  const d = (event.data ?? {}) as { scope?: string; limit?: string; text?: string; maxWallMs?: number; maxIdleMs?: number; maxTokens?: number; maxCostUsd?: number };
  const target = `${d.scope ?? ''} ${event.subject ?? ''}`.trim();
  if (event.kind === 'envelope.stopped') return `stopped by its envelope: ${d.limit ?? '?'} — ${d.text ?? target}`;
  if (event.kind === 'envelope.set') {
    const limits = [
      d.maxCostUsd !== undefined ? `$${d.maxCostUsd}` : null,
      d.maxTokens !== undefined ? `${d.maxTokens} tokens` : null,
      d.maxWallMs !== undefined ? `${Math.round(d.maxWallMs / 1000)} s wall-clock` : null,
      d.maxIdleMs !== undefined ? `${Math.round(d.maxIdleMs / 1000)} s idle` : null,
    ].filter(Boolean);
    return `${event.actor ?? 'someone'} put an envelope on ${target}: ${limits.join(', ')}`;
  }
  if (event.kind === 'envelope.cleared') return `${event.actor ?? 'someone'} took the envelope off ${target}`;
  return null;
}
