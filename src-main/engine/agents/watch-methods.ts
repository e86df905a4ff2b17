import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import type { AgentRunView } from '../../common/methods/agents';
import type { EngineContext } from '../room/index';
import { AgentWatchRepo } from '../store/agent-watch';
import type { AgentWatch, WatchPolicy } from './agent-watch';

type WatchMethods = 'agent_watch' | 'agent_watch_defaults' | 'agent_limit';

/** The room's defaults for its agents' watch: the stored ones (agent_watch_defaults), else the runner's. */
export function watchDefaults(ctx: EngineContext): () => WatchPolicy {
  const repo = new AgentWatchRepo(ctx.room.db);
  return () => {
    const set = repo.get();
    return { stallMs: set.stallMs ?? ctx.limits.agentStallMs, onStall: set.onStall ?? 'tell', onLimit: set.onLimit ?? 'ask' };
  };
}

/** An agent_start's (or agent_watch's) watch settings over `base`. */
export function policyFrom(base: WatchPolicy, input: { stallMinutes?: number | undefined; onStall?: WatchPolicy['onStall'] | undefined; onLimit?: WatchPolicy['onLimit'] | undefined }): WatchPolicy {
  return {
    stallMs: input.stallMinutes !== undefined ? Math.round(input.stallMinutes * 60_000) : base.stallMs,
    onStall: input.onStall ?? base.onStall,
    onLimit: input.onLimit ?? base.onLimit,
  };
}

/**
 * agent_watch (one run's policies), agent_watch_defaults (the room's, for runs started from now on) and
 * agent_limit (resume a limited agent at its reset or now, or cancel the resume counted down to).
 */
export function watchMethods(
  ctx: EngineContext,
  watch: AgentWatch,
  view: (caller: Caller, shellId: string) => AgentRunView,
): { [M in WatchMethods]: (caller: Caller, input: MethodInput<M>) => Promise<MethodOutputs[M]> } {
  const repo = new AgentWatchRepo(ctx.room.db);
  const defaults = watchDefaults(ctx);
  return {
    agent_watch: async (caller, input) => {
      const before = view(caller, input.shellId).watch;
      const next = policyFrom(before, input);
      watch.change(input.shellId, next);
      const agent = view(caller, input.shellId);
      ctx.commit(() => ({ value: undefined, events: [{ kind: 'agent.watch_changed', actor: caller.name, subject: agent.participant, data: { shellId: input.shellId, ...next } }] }));
      return { agent };
    },
    agent_watch_defaults: async (caller, input) => {
      if (input.stallMinutes === undefined && input.onStall === undefined && input.onLimit === undefined) return defaults();
      const now = repo.get();
      const next = { stallMs: input.stallMinutes !== undefined ? Math.round(input.stallMinutes * 60_000) : now.stallMs, onStall: input.onStall ?? now.onStall, onLimit: input.onLimit ?? now.onLimit };
      ctx.commit(() => {
        repo.set(next, ctx.now(), caller.name);
        return { value: undefined, events: [{ kind: 'agent.watch_defaults_changed', actor: caller.name, subject: null, data: { ...defaults() } }] };
      });
      return defaults();
    },
    agent_limit: async (caller, input) => {
      view(caller, input.shellId); // the caller may see it
      watch.limitAction(input.shellId, input.action, caller.name);
      return { agent: view(caller, input.shellId) };
    },
  };
}
