import { LIMIT_POLICIES, STALL_POLICIES, type AgentRunView, type LimitPolicy, type StallPolicy } from '../../common/methods/agents';
import { conditionText, howLong, resumeText } from '../../common/agent-condition-text';
import { stringFlag, UsageError, type ParsedArgs } from '../args';
import { print } from '../command';
import { callRunningRoomAsOperator } from '../room-client';

/** The watch's flags (ce agent start, ce agent watch, ce agent defaults). */
export const WATCH_OPTIONS = {
  'on-stall': { type: 'string', value: STALL_POLICIES.join('|'), help: 'when it stalls (working, but its terminal, CPU and process tree quiet): tell you (the default), interrupt it (Esc), or restart it resuming its conversation' },
  'stall-minutes': { type: 'string', value: 'N', help: 'how long quiet reads stalled (default: the room\'s, 10)' },
  'on-limit': { type: 'string', value: LIMIT_POLICIES.join('|'), help: 'when its client stops at a usage limit: resume it at the reset (typing its continue), ask you (the default), or leave it' },
} as const;

/** The watch settings the flags give, for agent_start, agent_watch and agent_watch_defaults. */
export function watchFlags(args: ParsedArgs): { onStall?: StallPolicy; onLimit?: LimitPolicy; stallMinutes?: number } {
  const onStall = stringFlag(args, 'on-stall');
  const onLimit = stringFlag(args, 'on-limit');
  const minutes = stringFlag(args, 'stall-minutes');
  if (onStall !== undefined && !(STALL_POLICIES as readonly string[]).includes(onStall)) throw new UsageError(`--on-stall is one of ${STALL_POLICIES.join(', ')} (not ${JSON.stringify(onStall)})`);
  if (onLimit !== undefined && !(LIMIT_POLICIES as readonly string[]).includes(onLimit)) throw new UsageError(`--on-limit is one of ${LIMIT_POLICIES.join(', ')} (not ${JSON.stringify(onLimit)})`);
  if (minutes !== undefined && !(Number(minutes) > 0)) throw new UsageError(`--stall-minutes is a number of minutes above 0 (not ${JSON.stringify(minutes)})`);
  return { ...(onStall ? { onStall: onStall as StallPolicy } : {}), ...(onLimit ? { onLimit: onLimit as LimitPolicy } : {}), ...(minutes !== undefined ? { stallMinutes: Number(minutes) } : {}) };
}

/** What `ce agent list` adds to an agent's line: stalled or limited, and the resume counted down to. */
export function watchWords(a: AgentRunView): string {
  const condition = { ...(a.watch.stalled ? { stalled: a.watch.stalled } : {}), ...(a.watch.limited ? { limited: a.watch.limited } : {}) };
  const said = conditionText(condition);
  if (!said) return '';
  const resume = resumeText(condition);
  return ` ${said.toUpperCase()}${resume ? `, ${resume} (cancel: ce agent limit ${a.shellId} cancel)` : a.watch.limited ? ` (resume: ce agent limit ${a.shellId} now|at-reset)` : ''}`;
}

async function call<M extends 'agent_watch' | 'agent_watch_defaults' | 'agent_limit'>(room: string | undefined, method: M, input: Parameters<typeof callRunningRoomAsOperator<M>>[2]) {
  const out = await callRunningRoomAsOperator(room, method, input);
  if (out === null) throw new Error('no room process serves this room: start it with "commonroom serve" (or the app)');
  return out;
}

const ACTIONS = { now: 'resume_now', 'at-reset': 'resume_at_reset', cancel: 'cancel' } as const;

/** ce agent watch SHELL [flags] | ce agent limit SHELL now|at-reset|cancel | ce agent defaults [flags]. */
export async function runWatchCommand(sub: 'watch' | 'limit' | 'defaults', target: string | undefined, action: string | undefined, args: ParsedArgs, room: string | undefined): Promise<number> {
  if (sub === 'defaults') {
    const out = await call(room, 'agent_watch_defaults', watchFlags(args));
    print(args, out, () => `agents started from now on: stalled after ${howLong(out.stallMs)} quiet; on a stall: ${out.onStall}; at a usage limit: ${out.onLimit}`);
    return 0;
  }
  if (!target) throw new UsageError(`ce agent ${sub} SHELL: name its shell (see "ce agent list")`);
  if (sub === 'watch') {
    const { agent } = await call(room, 'agent_watch', { shellId: target, ...watchFlags(args) });
    print(args, { agent }, () => `${agent.participant}: stalled after ${howLong(agent.watch.stallMs)} quiet; on a stall: ${agent.watch.onStall}; at a usage limit: ${agent.watch.onLimit}`);
    return 0;
  }
  const chosen = ACTIONS[action as keyof typeof ACTIONS];
  if (!chosen) throw new UsageError(`ce agent limit SHELL ACTION: ACTION is now (type its continue now), at-reset (at its reset time) or cancel (the resume counted down to)`);
  const { agent } = await call(room, 'agent_limit', { shellId: target, action: chosen });
  print(args, { agent }, () => (chosen === 'resume_now' ? `typed its continue into ${agent.participant}` : `${agent.participant}:${watchWords(agent) || ' not limited now'}`));
  return 0;
}
