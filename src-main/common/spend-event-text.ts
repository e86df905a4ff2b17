/**
 * One readable line for a spend event, for where events are described for people (Activity, the summary):
 * "stopped by its envelope: cost — claude-code (terminal sh-…) spent $0.52 of its $0.50". Null: not one of these.
 * Here in common/ so the engine's spend feature and the event texts (common/event-text.ts) share it.
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
    return `${event.actor ?? 'someone'} put an envelope on ${target}${limits.length > 0 ? `: ${limits.join(', ')}` : ''}`;
  }
  if (event.kind === 'envelope.cleared') return `${event.actor ?? 'someone'} took the envelope off ${target}`;
  return null;
}
