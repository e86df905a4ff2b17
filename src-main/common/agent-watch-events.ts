import { clock, howLong } from './agent-condition-text';

/** The events the room's watch of its agents records (engine/agents/agent-watch.ts), for the summary and Activity. */
export const AGENT_WATCH_EVENTS = [
  'agent.stalled',
  'agent.stall_interrupted',
  'agent.stall_restarted',
  'agent.stall_restart_failed',
  'agent.stall_ended',
  'agent.limited',
  'agent.limit_reset',
  'agent.limit_resumed',
  'agent.limit_resume_cancelled',
  'agent.limit_ended',
  'agent.watch_changed',
  'agent.watch_defaults_changed',
] as const;

const POLICY: Record<string, string> = { tell: 'you are told', interrupt: 'it is interrupted', restart: 'it is restarted, resuming', resume: 'it resumes at the reset', ask: 'you are asked', leave: 'it is left' };

/**
 * One of those events in a line a person reads ("claude-code stalled (quiet 10 min): you are told"), or null for
 * any other kind. Times are in the reader's own zone.
 */
export function describeAgentWatchEvent(event: { kind: string; subject: string | null; actor: string | null; data: unknown }): string | null {
  const d = (event.data ?? {}) as Record<string, unknown>;
  const who = event.subject ?? 'an agent';
  const ms = (v: unknown) => (typeof v === 'number' ? howLong(v) : '?');
  const at = (v: unknown) => (typeof v === 'string' ? clock(new Date(v)) : null);
  // an old row, or one whose data has another shape, still reads as words
  const said = (v: unknown, otherwise: string) => (typeof v === 'string' && v.length > 0 ? v : otherwise);
  const policy = (v: unknown) => POLICY[String(v)] ?? said(v, 'as its policy says');
  switch (event.kind) {
    case 'agent.stalled':
      return `${who} stalled (quiet ${ms(d.quietMs)}): ${policy(d.policy)}`;
    case 'agent.stall_interrupted':
      return `${who} was still stalled: the room pressed ${said(d.key, 'its interrupt key')}`;
    case 'agent.stall_restarted':
      return `${who} was still stalled: the room started it again, resuming its conversation (shell ${said(d.newShellId, '?')})`;
    case 'agent.stall_restart_failed':
      return `${who} was still stalled, and could not be started again: ${said(d.error, 'the start failed')}`;
    case 'agent.stall_ended':
      return `${who} moved again after ${ms(d.stalledMs)} stalled`;
    case 'agent.limited':
      return `${who} hit a usage limit${at(d.until) ? ` until ${at(d.until)}` : ''}${typeof d.text === 'string' ? ` (“${d.text}”)` : ''}: ${policy(d.policy)}`;
    case 'agent.limit_reset':
      return `${who}'s usage limit reset at ${at(d.until) ?? '?'}: ${d.retriesItself ? 'its client retries by itself' : 'it waits for you to resume it'}`;
    case 'agent.limit_resumed':
      if (d.typed === null) return `${who} goes on after its usage limit: its client retries by itself at the reset (nothing typed)`;
      return `${who} was resumed after its usage limit (${d.by === 'commonroom' ? 'by the room, at the reset' : `by ${said(d.by, 'someone')}`})`;
    case 'agent.limit_resume_cancelled':
      return `${said(d.by, event.actor ?? 'someone')} cancelled ${who}'s resume${at(d.resumeAt) ? ` at ${at(d.resumeAt)}` : ''}`;
    case 'agent.limit_ended':
      return `${who}'s usage limit is over (${said(d.reason, 'it went')})`;
    case 'agent.watch_changed':
      return `${event.actor ?? 'someone'} set ${who}'s watch: stalled after ${ms(d.stallMs)}; on a stall ${said(d.onStall, '?')}; at a limit ${said(d.onLimit, '?')}`;
    case 'agent.watch_defaults_changed':
      return `${event.actor ?? 'someone'} set the room's agent watch: stalled after ${ms(d.stallMs)}; on a stall ${said(d.onStall, '?')}; at a limit ${said(d.onLimit, '?')}`;
    default:
      return null;
  }
}
