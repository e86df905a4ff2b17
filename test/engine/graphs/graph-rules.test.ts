import { describe, expect, it } from 'vitest';
import { RoomError } from '../../../src-main/common/errors';
import { decide, decideOn, shapeOf, waitingOn, type SchedStage } from '../../../src-main/common/graphs/graph-scheduler';
import { graphSpec } from '../../../src-main/common/graphs/graph-spec';
import { findCycle, topologicalOrder, validateGraph } from '../../../src-main/common/graphs/graph-validate';
import { classifyExit, deriveGraphState, nextStageState, type StageState } from '../../../src-main/common/graphs/stage-machine';
import { backoffBeforeAttempt, retryPolicyOf } from '../../../src-main/common/graphs/retry-policy';

function refusal(fn: () => unknown): RoomError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RoomError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('graph validation', () => {
  it('names the cycle in run order', () => {
    const e = refusal(() => validateGraph([{ id: 'a', dependsOn: ['c'] }, { id: 'b', dependsOn: ['a'] }, { id: 'c', dependsOn: ['b'] }, { id: 'd' }]));
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.message).toMatch(/cycle: (a → b → c → a|b → c → a → b|c → a → b → c)/);
    expect(e.details?.cycle).toHaveLength(4);
  });
  it('a stage that depends on itself is a cycle of one', () => {
    expect(findCycle([{ id: 'x', dependsOn: ['x'] }])).toEqual(['x', 'x']);
  });
  it.each([
    [[], /at least one stage/],
    [[{ id: 'a' }, { id: 'a' }], /two stages have the id "a"/],
    [[{ id: 'a', dependsOn: ['nope'] }], /depends on "nope", which is not a stage/],
    [[{ id: 'a' }, { id: 'b', dependsOn: ['a', 'a'] }], /lists "a" twice/],
  ])('refuses %j', (stages, message) => {
    expect(refusal(() => validateGraph(stages)).message).toMatch(message);
  });
  it('refuses a graph over the size limit', () => {
    const e = refusal(() => validateGraph([{ id: 'a' }, { id: 'b' }, { id: 'c' }], 2));
    expect(e.code).toBe('LIMIT_EXCEEDED');
    expect(e.message).toMatch(/at most 2 stages/);
  });
  it('orders a diamond dependency-first and keeps submission order among peers', () => {
    expect(topologicalOrder([{ id: 'd', dependsOn: ['b', 'c'] }, { id: 'c', dependsOn: ['a'] }, { id: 'b', dependsOn: ['a'] }, { id: 'a' }])).toEqual(['a', 'c', 'b', 'd']);
  });
  it('finds no cycle in a long chain (iterative, no stack overflow)', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => ({ id: `s${i}`, dependsOn: i === 0 ? [] : [`s${i - 1}`] }));
    expect(findCycle(chain)).toBeNull();
  });
});

describe('graph schema', () => {
  const ok = (v: unknown) => graphSpec().safeParse(v).success;
  it('accepts argv and shell commands, readiness of each kind', () => {
    expect(ok({ stages: [{ id: 'a', command: ['echo', 'hi'] }, { id: 'b', command: 'echo hi', readiness: { log: 'ready' } }] })).toBe(true);
    expect(ok({ stages: [{ id: 'a', command: 'x', readiness: { port: 3000 } }, { id: 'b', command: 'x', readiness: { url: 'http://127.0.0.1:1/' } }] })).toBe(true);
  });
  it.each<[unknown, string]>([
    [{ stages: [{ id: 'a b', command: 'x' }] }, 'id with a space'],
    [{ stages: [{ id: 'a', command: 'x', readiness: { log: 'a', port: 1 } }] }, 'two readiness kinds'],
    [{ stages: [{ id: 'a', command: 'x', readiness: { log: '(' } }] }, 'a bad regex'],
    [{ stages: [{ id: 'a', command: 'x', env: { COMMONROOM_PROC_TAG: 'x' } }] }, 'overriding the runner tag'],
    [{ stages: [{ id: 'a', command: 'x', retries: 99 }] }, 'too many retries'],
    [{ stages: [{ id: 'a', command: 'x', extra: 1 }] }, 'an unknown field'],
    [{ stages: [{ id: 'a', command: [] }] }, 'an empty argv'],
    [{ maxParallel: 0, stages: [{ id: 'a', command: 'x' }] }, 'maxParallel 0'],
  ])('refuses %j (%s)', (value, _why) => {
    expect(ok(value)).toBe(false);
  });
});

describe('stage machine', () => {
  it('allows only forward transitions', () => {
    expect(nextStageState('pending', 'running')).toBe('running');
    expect(() => nextStageState('completed', 'running')).toThrow(/already ended/);
    expect(() => nextStageState('pending', 'completed')).toThrow(/cannot become/);
  });
  it.each<[StageState[], string]>([
    [['pending', 'pending'], 'pending'],
    [['completed', 'pending'], 'running'],
    [['completed', 'completed'], 'completed'],
    [['completed', 'failed', 'skipped'], 'failed'],
    [['completed', 'skipped'], 'cancelled'],
    [['cancelled', 'failed'], 'failed'],
    [['cancelled', 'completed'], 'cancelled'],
  ])('derives the graph state of %j as %s (a failure never reads as success)', (states, expected) => {
    expect(deriveGraphState(states)).toBe(expected);
  });
  it('classifies how an attempt ended', () => {
    expect(classifyExit({ code: 0, signal: null })).toEqual({ state: 'completed', errorCode: null });
    expect(classifyExit({ code: 2, signal: null })).toEqual({ state: 'failed', errorCode: 'EXIT_NONZERO' });
    expect(classifyExit({ code: null, signal: 'SIGSEGV' })).toEqual({ state: 'failed', errorCode: 'SIGNAL' });
    expect(classifyExit({ code: null, signal: 'SIGINT', endedBy: 'timeout' })).toEqual({ state: 'failed', errorCode: 'TIMEOUT' });
    expect(classifyExit({ code: null, signal: 'SIGINT', endedBy: 'cancel' })).toEqual({ state: 'cancelled', errorCode: 'CANCELLED' });
    expect(classifyExit({ code: null, signal: 'SIGINT', endedBy: 'service-stop' })).toEqual({ state: 'completed', errorCode: null });
  });
  it('backs off exponentially, capped', () => {
    const policy = retryPolicyOf({ retries: 4, retryBackoffMs: 100 }, { initialBackoffMs: 1000, maxBackoffMs: 500 });
    expect([2, 3, 4, 5].map((n) => backoffBeforeAttempt(policy, n))).toEqual([100, 200, 400, 500]);
  });
});

const st = (id: string, state: StageState, dependsOn: string[] = [], extra: Partial<SchedStage> = {}): SchedStage => ({
  id,
  dependsOn,
  state,
  hasReadiness: false,
  ready: false,
  ...extra,
});

describe('scheduling decision', () => {
  const opts = { maxParallel: 2, onFailure: 'skip-dependents' as const };
  it('starts ready stages in submission order up to maxParallel', () => {
    const d = decide([st('a', 'pending'), st('b', 'pending'), st('c', 'pending'), st('d', 'pending', ['a'])], opts);
    expect(d.start).toEqual(['a', 'b']);
  });
  it('counts running stages against maxParallel', () => {
    expect(decide([st('a', 'running'), st('b', 'pending'), st('c', 'pending')], opts).start).toEqual(['b']);
  });
  it('skips dependents of a failure transitively and goes on with the rest', () => {
    const d = decide([st('a', 'failed'), st('b', 'pending', ['a']), st('c', 'pending', ['b']), st('x', 'pending')], opts);
    expect(d.skip).toEqual([
      { id: 'b', upstream: 'a' },
      { id: 'c', upstream: 'b' },
    ]);
    expect(d.start).toEqual(['x']);
  });
  it('cancel-all cancels pending and running stages after a failure', () => {
    const d = decide([st('a', 'failed'), st('b', 'running'), st('c', 'pending'), st('d', 'pending', ['a'])], { ...opts, onFailure: 'cancel-all' });
    expect(d.skip).toEqual([{ id: 'd', upstream: 'a' }]);
    expect(d.cancelPending).toEqual(['c']);
    expect(d.cancelRunning).toEqual(['b']);
    expect(d.start).toEqual([]);
  });
  it('a ready long-running stage satisfies dependents and frees its slot; it is stopped once they all ended', () => {
    const svc = st('svc', 'running', [], { hasReadiness: true, ready: true });
    expect(decide([svc, st('e2e', 'pending', ['svc'])], { ...opts, maxParallel: 1 }).start).toEqual(['e2e']);
    expect(decide([svc, st('e2e', 'running', ['svc'])], opts).stopServices).toEqual([]);
    expect(decide([svc, st('e2e', 'completed', ['svc'])], opts).stopServices).toEqual(['svc']);
    expect(decide([{ ...svc, ready: false }, st('e2e', 'pending', ['svc'])], opts).start).toEqual([]);
  });
  it('names the stages that may start next, so their logs can be made ready while the others run', () => {
    const chain = [st('a', 'completed'), st('b', 'running', ['a']), st('c', 'pending', ['b']), st('d', 'pending', ['c'])];
    expect(decide(chain, { maxParallel: 2, onFailure: 'skip-dependents' })).toMatchObject({ start: [], soon: ['c'] });
    const wide = ['a', 'b', 'c', 'd', 'e'].map((id, i) => st(id, i < 2 ? 'running' : 'pending'));
    expect(decide(wide, { maxParallel: 2, onFailure: 'skip-dependents' })).toMatchObject({ start: [], soon: ['c', 'd'] });
    // a stage started now counts as under way for its dependents
    const fresh = [st('a', 'pending'), st('b', 'pending', ['a']), st('c', 'pending', ['b'])];
    expect(decide(fresh, { maxParallel: 1, onFailure: 'skip-dependents' })).toMatchObject({ start: ['a'], soon: ['b'] });
  });
  it('says what a pending stage waits on', () => {
    const stages = [st('a', 'running'), st('b', 'completed'), st('c', 'pending', ['a', 'b']), st('d', 'pending')];
    expect(waitingOn(stages[2] as SchedStage, stages, 1)).toEqual({ stages: [{ id: 'a', state: 'running' }], slot: false });
    expect(waitingOn(stages[3] as SchedStage, stages, 1)).toEqual({ stages: [], slot: true });
  });

  it('decides on random graphs what the rules say, its shape built once and reused as the states change', () => {
    // a seeded generator: a failure names its case
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const STATES: StageState[] = ['pending', 'pending', 'pending', 'running', 'completed', 'completed', 'failed', 'cancelled', 'skipped'];
    const DEAD = new Set<StageState>(['failed', 'cancelled', 'skipped']);
    const TERMINAL = new Set<StageState>(['completed', 'failed', 'cancelled', 'skipped']);
    for (let c = 0; c < 400; c++) {
      const n = 1 + rand(24);
      // acyclic: a stage depends only on stages earlier in a random order, which is not the submission order
      const order = Array.from({ length: n }, (_, i) => i).sort(() => rand(3) - 1);
      const ids = Array.from({ length: n }, (_, i) => `s${i}`);
      const dependsOn = ids.map((_, i) => {
        const before = order.slice(0, order.indexOf(i));
        return before.filter(() => rand(4) === 0).map((j) => ids[j] as string);
      });
      const shape = shapeOf(ids.map((id, i) => ({ id, dependsOn: dependsOn[i] as string[] })));
      // several moments of one graph, on the same shape
      for (let m = 0; m < 5; m++) {
        const stages: SchedStage[] = ids.map((id, i) => {
          const state = STATES[rand(STATES.length)] as StageState;
          const hasReadiness = rand(4) === 0;
          return { id, dependsOn: dependsOn[i] as string[], state, hasReadiness, ready: state === 'running' && hasReadiness && rand(2) === 0 };
        });
        const options = { maxParallel: 1 + rand(3), onFailure: rand(2) === 0 ? ('cancel-all' as const) : ('skip-dependents' as const), cancelling: rand(10) === 0 };
        const d = decideOn(shape, { states: stages.map((s) => s.state), serving: stages.map((s) => s.hasReadiness && s.ready) }, options);
        const why = `case ${c}.${m}: ${JSON.stringify({ stages, options })}`;
        expect(decide(stages, options), why).toEqual(d);
        // the rules, checked from scratch: skipped = every pending stage that (transitively) depends on a dead one
        const after = new Map(stages.map((s) => [s.id, s.state] as const));
        for (let changed = true; changed; ) {
          changed = false;
          for (const s of stages) {
            if (after.get(s.id) === 'pending' && s.dependsOn.some((x) => DEAD.has(after.get(x) as StageState))) {
              after.set(s.id, 'skipped');
              changed = true;
            }
          }
        }
        const newlySkipped = stages.filter((s) => s.state === 'pending' && after.get(s.id) === 'skipped').map((s) => s.id);
        expect(d.skip.map((k) => k.id).sort(), why).toEqual(newlySkipped.sort());
        for (const k of d.skip) expect(stages.find((s) => s.id === k.id)?.dependsOn.includes(k.upstream) && DEAD.has(after.get(k.upstream) as StageState), why).toBe(true);
        const pendingAfter = stages.filter((s) => after.get(s.id) === 'pending').map((s) => s.id);
        if ((options.onFailure === 'cancel-all' && stages.some((s) => s.state === 'failed')) || options.cancelling) {
          expect(d.cancelPending, why).toEqual(pendingAfter);
          expect(d.cancelRunning, why).toEqual(stages.filter((s) => s.state === 'running').map((s) => s.id));
          expect(d.start, why).toEqual([]);
          expect(d.soon, why).toEqual([]);
          continue;
        }
        const byId = new Map(stages.map((s) => [s.id, s] as const));
        const busy = stages.filter((s) => s.state === 'running' && !(s.hasReadiness && s.ready)).length;
        const startable = pendingAfter.filter((id) => byId.get(id)?.dependsOn.every((x) => satisfiedNow(byId.get(x) as SchedStage)));
        expect(d.start, why).toEqual(startable.slice(0, Math.max(0, options.maxParallel - busy)));
        const stop = stages.filter((s) => {
          const dependents = stages.filter((x) => x.dependsOn.includes(s.id));
          return s.state === 'running' && s.hasReadiness && s.ready && dependents.length > 0 && dependents.every((x) => !d.start.includes(x.id) && TERMINAL.has(after.get(x.id) as StageState));
        });
        expect(d.stopServices, why).toEqual(stop.map((s) => s.id));
        // soon: the next pending stages not started now whose every dependency is satisfied, running or starting
        const underWay = (x: string) => satisfiedNow(byId.get(x) as SchedStage) || byId.get(x)?.state === 'running' || d.start.includes(x);
        const soon = pendingAfter.filter((id) => !d.start.includes(id) && byId.get(id)?.dependsOn.every(underWay));
        expect(d.soon, why).toEqual(soon.slice(0, options.maxParallel));
      }
    }
  });
});

const satisfiedNow = (s: SchedStage) => s.state === 'completed' || (s.state === 'running' && s.hasReadiness && s.ready);
