import { makeHome } from '../helpers/env';
import { startServe, stopServe } from '../helpers/serve';
import { api, connectClient, type ToolClient } from './clients';
import { listen, type Listener } from './listeners';
import { percentile } from './scale';

/**
 * Many clients of both eras against one real `commonroom serve`: each participant hands work to the next one,
 * accepts and completes what it was handed, and reads; listeners of every participant watch their own tasks
 * and, on purpose, others' too. Counted: errors, cross-deliveries (a listener told of a task its participant
 * has no part in); measured: call latency, and the event-loop lag of the runner seen from outside (an
 * unauthenticated GET every 50 ms, answered by the front door without any work).
 */
export interface LoadTally {
  clients: number;
  callsPerClient: number;
  listeners: number;
  calls: number;
  errors: number;
  firstErrors: string[];
  crossDeliveries: number;
  notifications: number;
  capRefusal: string;
  taskCapRefusal: string;
  p50: number;
  p99: number;
  lagP50: number;
  lagP99: number;
  lagMax: number;
}

interface Handoff {
  id: string;
  taskId: string;
  status: string;
}

export async function runLoad(clients: number, callsPerClient: number, listeners: number): Promise<LoadTally> {
  const home = makeHome();
  const serve = await startServe(home);
  const url = new URL(serve.mcpUrl);
  const names = Array.from({ length: clients }, (_, i) => `p${i}`);
  const tokens: Record<string, string> = {};
  const involved = new Map<string, Set<string>>(); // task id → participants with a part in it
  const inbox = new Map<string, Handoff[]>(names.map((n) => [n, []])); // handed to me, not accepted yet
  const accepted = new Map<string, Handoff[]>(names.map((n) => [n, []]));
  const mine = new Map<string, Handoff[]>(names.map((n) => [n, []]));
  // the room caps tasks working at once (32): each participant keeps at most one handoff of its own in flight
  const live = new Set<string>();
  const inFlight = (me: string) => (mine.get(me) ?? []).some((h) => live.has(h.id));
  const latencies: number[] = [];
  const firstErrors: string[] = [];
  let errors = 0;
  let calls = 0;
  const lags: number[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const t = performance.now();
      await fetch(new URL('/', url), { signal: AbortSignal.timeout(30_000) }).then((r) => r.arrayBuffer(), () => undefined);
      lags.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const open: ToolClient[] = [];
  const streams: Listener[] = [];
  try {
    for (const n of names) tokens[n] = (await api<{ token: string }>(serve.mcpUrl, serve.token, 'participant_add', { name: n, capabilities: ['read', 'write'] })).token;
    const conns = await Promise.all(names.map((n, i) => connectClient(url, tokens[n] as string, i % 2 === 0 ? 'legacy' : 'modern', n)));
    open.push(...conns);
    const timed = async <T>(who: string, tool: string, c: ToolClient, args: Record<string, unknown>): Promise<T | null> => {
      const t = performance.now();
      calls++;
      try {
        const out = await c.call<T>(tool, args);
        latencies.push(performance.now() - t);
        return out;
      } catch (e) {
        errors++;
        if (firstErrors.length < 10) firstErrors.push(`${who} ${tool}: ${(e as Error).message}`);
        return null;
      }
    };
    const create = async (i: number, k: number) => {
      const me = names[i] as string;
      const peer = names[(i + 1) % clients] as string;
      const out = await timed<{ handoff: Handoff }>(me, 'handoff_create', conns[i] as ToolClient, { summary: `load ${me} #${k}`, to: peer });
      if (!out) return;
      involved.set(out.handoff.taskId, new Set([me, peer]));
      live.add(out.handoff.id);
      mine.get(me)?.push(out.handoff);
      inbox.get(peer)?.push(out.handoff);
    };
    // every participant has tasks before the listeners start
    await Promise.all(names.map((_, i) => create(i, -1)));
    const allTasks = [...involved.keys()];
    for (let j = 0; j < listeners; j++) {
      const who = names[j % clients] as string;
      const own = allTasks.filter((t) => involved.get(t)?.has(who));
      const foreign = allTasks.filter((t) => !involved.get(t)?.has(who)).slice(j % 7, (j % 7) + 2);
      streams.push(Object.assign(await listen(url, tokens[who] as string, [...own, ...foreign]), { who }));
    }
    await Promise.all(
      names.map(async (me, i) => {
        const c = conns[i] as ToolClient;
        for (let k = 0; k < callsPerClient; k++) {
          const kind = k % 6;
          const incoming = inbox.get(me) as Handoff[];
          const working = accepted.get(me) as Handoff[];
          const own = mine.get(me) as Handoff[];
          if (kind === 0 && !inFlight(me)) await create(i, k);
          else if (kind === 1 && incoming.length > 0) {
            const h = incoming.shift() as Handoff;
            if (await timed(me, 'handoff_accept', c, { handoffId: h.id })) working.push(h);
          } else if (kind === 2 && working.length > 0) {
            const h = working.shift() as Handoff;
            if (await timed(me, 'handoff_complete', c, { handoffId: h.id, result: 'done' })) live.delete(h.id);
          }
          else if (kind === 3 && own.length > 0) await timed(me, 'handoff_get', c, { handoffId: (own[k % own.length] as Handoff).id });
          else if (kind === 4 && own.length > 0) await timed(me, 'handoff_events', c, { handoffId: (own[k % own.length] as Handoff).id });
          else await timed(me, 'workspace_history', c, { limit: 20 });
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 500)); // the last notifications are on their way
    let crossDeliveries = 0;
    let notifications = 0;
    for (const s of streams as (Listener & { who: string })[]) {
      if (s.status !== 200) {
        errors++;
        firstErrors.push(`listener of ${s.who}: HTTP ${s.status}`);
      }
      for (const m of s.messages) {
        const taskId = m.params?.taskId;
        if (m.method !== 'notifications/tasks' || typeof taskId !== 'string') continue;
        notifications++;
        if (!involved.get(taskId)?.has(s.who)) crossDeliveries++;
      }
    }
    // the per-participant session cap: one more 2025-era session than allowed is refused with what to do
    let capRefusal = '';
    const extra: ToolClient[] = [];
    try {
      for (let k = 0; k < 64 && !capRefusal; k++) {
        try {
          extra.push(await connectClient(url, tokens.p0 as string, 'legacy', `cap-${k}`));
        } catch (e) {
          capRefusal = (e as Error).message;
        }
      }
    } finally {
      await Promise.all(extra.map((c) => c.close()));
    }
    // the room's cap on tasks working at once: filled up, the next create is refused with what to do
    let taskCapRefusal = '';
    for (let k = 0; k < 64 && !taskCapRefusal; k++) {
      try {
        await (conns[0] as ToolClient).call('handoff_create', { summary: `cap ${k}`, to: names[1] });
      } catch (e) {
        taskCapRefusal = (e as Error).message;
      }
    }
    probing = false;
    await probe;
    return {
      taskCapRefusal,
      clients,
      callsPerClient,
      listeners,
      calls,
      errors,
      firstErrors,
      crossDeliveries,
      notifications,
      capRefusal,
      p50: Math.round(percentile(latencies, 50)),
      p99: Math.round(percentile(latencies, 99)),
      lagP50: Math.round(percentile(lags, 50)),
      lagP99: Math.round(percentile(lags, 99)),
      lagMax: Math.round(Math.max(0, ...lags)),
    };
  } finally {
    probing = false;
    for (const s of streams) s.close();
    await Promise.all(open.map((c) => c.close()));
    await stopServe(serve);
    home.cleanup();
  }
}
