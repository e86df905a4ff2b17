import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { addUsage, NO_USAGE, usageOf } from '../../common/otlp-usage';
import type { EnvelopeScope, SpendUsage } from '../../common/methods/spend';
import type { EngineContext, Feature } from '../room/index';
import { SpendRepo } from '../store/spend';
import type { AgentRunRef, Invoke } from '../agents/index';
import { envelopeWatch } from './envelope-watch';

type SpendMethods = 'spend_record' | 'spend_report' | 'envelope_set' | 'envelope_clear';

/** How often wall-clock and idle limits are looked at (tokens and cost are looked at as each report arrives). */
export const ENVELOPE_TICK_MS = 1000;

const dayOf = (iso: string): string => iso.slice(0, 10);
function daysBack(nowIso: string, days: number): string {
  const d = new Date(`${dayOf(nowIso)}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - (days - 1));
  return d.toISOString().slice(0, 10);
}

/**
 * Spend: the tokens and cost agent clients report over OpenTelemetry (the OTLP door calls spend_record as the
 * run's participant), added up per UTC day, participant, agent run and handoff; and envelopes, the ceilings on an
 * agent run, a handoff or a graph, watched here (envelope-watch.ts). Owns the spend and envelopes tables.
 * What it does to other features (stop an agent, cancel a graph, hand the person a note) goes through
 * Engine.call (`invoke`); which runs are live, engine.ts hands it from the agents feature (`liveRuns`).
 */
export function spendFeature(ctx: EngineContext, invoke: Invoke, liveRuns: () => AgentRunRef[]): Feature<SpendMethods> {
  const repo = new SpendRepo(ctx.room.db);
  /** The last value of each cumulative series, per run (volatile: a client's cumulative series restarts with it). */
  const lastCumulative = new Map<string, number>();
  const watch = envelopeWatch(ctx, repo, invoke, liveRuns);

  function record(caller: Caller, input: MethodInput<'spend_record'>): MethodOutputs['spend_record'] {
    // its newest run (a participant started again has a new token: an older run's no longer reports)
    const run = liveRuns().filter((r) => r.participant === caller.name).at(-1) ?? null;
    let usage: SpendUsage = NO_USAGE;
    let recorded = 0;
    for (const point of input.points) {
      let amount = point.value;
      if (point.temporality === 'cumulative') {
        const key = `${run?.shellId ?? caller.name}\0${point.series}`;
        const last = lastCumulative.get(key);
        lastCumulative.set(key, point.value);
        // a value below the last is a restarted series: it counts from zero
        amount = last === undefined || point.value < last ? point.value : point.value - last;
      }
      const added = usageOf(point.metric, point.attributes, amount);
      if (!added) continue;
      usage = addUsage(usage, added);
      recorded++;
    }
    if (recorded === 0) return { recorded };
    const at = ctx.now();
    ctx.commit(() => {
      repo.add({ day: dayOf(at), participant: caller.name, run: run?.shellId ?? '', handoffId: run?.handoffId ?? null, client: input.client || (run?.client ?? '') }, usage, at);
      return { value: undefined, events: [] };
    });
    if (run) watch.usageArrived(run);
    return { recorded };
  }

  function report(input: MethodInput<'spend_report'>): MethodOutputs['spend_report'] {
    const from = daysBack(ctx.now(), input.days ?? 7);
    const filter = { participant: input.participant, handoffId: input.handoffId };
    return { rows: repo.rows(from, filter), totals: repo.totals(from, filter), envelopes: repo.envelopes() };
  }

  async function set(caller: Caller, input: MethodInput<'envelope_set'>): Promise<MethodOutputs['envelope_set']> {
    if (input.maxWallMs === undefined && input.maxIdleMs === undefined && input.maxTokens === undefined && input.maxCostUsd === undefined) {
      throw new RoomError('INVALID_INPUT', 'an envelope needs at least one limit: maxWallMs, maxIdleMs, maxTokens or maxCostUsd');
    }
    if (input.scope === 'graph' && (input.maxIdleMs !== undefined || input.maxTokens !== undefined || input.maxCostUsd !== undefined)) {
      throw new RoomError('INVALID_INPUT', "a graph's envelope bounds its wall-clock time (maxWallMs): its stages report no tokens or cost; put those on the agents' runs or their handoff");
    }
    await checkTarget(caller, input.scope, input.target);
    ctx.commit(() => {
      repo.putEnvelope(
        {
          id: `env_${input.scope}_${input.target}`,
          scope: input.scope,
          target: input.target,
          maxWallMs: input.maxWallMs ?? null,
          maxIdleMs: input.maxIdleMs ?? null,
          maxTokens: input.maxTokens ?? null,
          maxCostMicroUsd: input.maxCostUsd === undefined ? null : Math.round(input.maxCostUsd * 1e6),
        },
        ctx.now(),
        caller.name,
      );
      return { value: undefined, events: [{ kind: 'envelope.set', actor: caller.name, subject: input.target, data: { scope: input.scope, maxWallMs: input.maxWallMs, maxIdleMs: input.maxIdleMs, maxTokens: input.maxTokens, maxCostUsd: input.maxCostUsd } }] };
    });
    const envelope = repo.envelope(input.scope, input.target);
    if (!envelope) throw new RoomError('INTERNAL', 'the envelope was not kept');
    watch.kick();
    return { envelope };
  }

  /** The target is there and still going: an envelope on something that ended would never stop anything. */
  async function checkTarget(caller: Caller, scope: EnvelopeScope, target: string): Promise<void> {
    if (scope === 'agent') {
      if (!liveRuns().some((r) => r.shellId === target)) throw new RoomError('NOT_FOUND', `no agent the room started runs in terminal ${target}: see "ce agent list" for the terminal ids`);
    } else if (scope === 'handoff') {
      const { handoff } = await invoke(caller, 'handoff_get', { handoffId: target });
      if (!['open', 'accepted'].includes(handoff.status)) throw new RoomError('CONFLICT', `handoff ${target} is ${handoff.status}: there is no work left on it to bound`);
    } else {
      const { graph } = await invoke(caller, 'tasks_status', { graphId: target });
      if (graph.state !== 'pending' && graph.state !== 'running') throw new RoomError('CONFLICT', `graph ${target} is ${graph.state}: there is nothing left of it to bound`);
    }
  }

  return {
    name: 'spend',
    handlers: {
      spend_record: record,
      spend_report: (_caller, input) => report(input),
      envelope_set: set,
      envelope_clear: (caller, input) =>
        ctx.commit(() => {
          const removed = repo.removeEnvelope(input.scope, input.target);
          return { value: { removed }, events: removed ? [{ kind: 'envelope.cleared', actor: caller.name, subject: input.target, data: { scope: input.scope } }] : [] };
        }),
    },
    start() {
      watch.start(ENVELOPE_TICK_MS);
    },
    close() {
      watch.close();
      lastCumulative.clear();
    },
  };
}
