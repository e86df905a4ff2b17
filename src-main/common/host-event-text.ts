/**
 * A host event in a person's words, one line (the room's history, Activity and the summary; null: not a host
 * event). Here in common/ so the engine's hosts feature and the event texts (common/event-text.ts) share it.
 */
export function describeHostEvent(event: { kind: string; subject: string | null; data?: unknown }): string | null {
  const alias = event.subject ?? 'a host';
  const data = (event.data ?? {}) as { agents?: boolean; reachable?: boolean; ready?: boolean; missing?: number; error?: string | null; shellId?: string; bytes?: number; participant?: string; handoffId?: string };
  switch (event.kind) {
    case 'host.added':
      return `host ${alias} added${data.agents === false ? ' (for the person only)' : ''}`;
    case 'host.changed':
      return `host ${alias}: agents ${data.agents ? 'may' : 'may not'} place work on it now`;
    case 'host.removed':
      return `host ${alias} removed`;
    case 'host.checked':
      if (!data.reachable) return `host ${alias} checked: not reachable${data.error ? ` (${data.error})` : ''}`;
      return `host ${alias} checked: ${data.ready ? 'ready' : `${data.missing ?? 0} thing(s) missing`}`;
    case 'host.unreachable':
      return `host ${alias} is unreachable${data.error ? ` (${data.error})` : ''}: its shells and stages go on there, unknown here until it is back`;
    case 'host.reachable':
      return `host ${alias} is reachable again: its shells and stages are followed again`;
    case 'host.output_lost':
      return `host ${alias}: ${data.bytes ?? 0} bytes of shell ${data.shellId ?? '?'}'s output were lost before they reached the room (the host's scrollback moved on while it was away); readers are told where`;
    case 'host.input_lost':
      return `host ${alias}: the reason handoff ${data.handoffId ?? '?'} was sent back for did not reach ${data.participant ?? 'its agent'}'s terminal there (shell ${data.shellId ?? '?'}${data.error ? `: ${data.error}` : ''}); it is kept on the handoff, where the person sees it in its review and the agent reads it with handoff_get`;
    default:
      return null;
  }
}
