// fanout: 100 subscriptions/listen streams on one handoff task while its status changes (the assignee asks
// for input, the owner answers: each call commits an event and a task change), then 100 UI sockets (the door
// the app's pages use, signed in with the operator's token as `ce shell attach` does) receiving the same calls'
// events from the one change feed. Delivery latency: from the call being sent to each subscriber receiving the
// notification or event. Baseline, the same work bare: an MCP call to the bare server (`durable_broadcast`) that
// commits one row with an fsync and then sends a message to 100 plain SSE streams, timed the same way. Each side
// is measured while other events flow: in the room, LOAD_PAIRS operator/agent pairs run handoff cycles as fast
// as they go (every call commits an event every UI socket is sent, and every listen stream's feed has to look
// at); the bare server is sent as many `durable_broadcast` calls a second as the room's load committed events
// (the issue asks for 1,000 events/s; the row says what was reached). The 100 streams are spread over four
// watchers with `approve`, 25 each, under the room's own limit of 32 connections a participant.
import { clearTimeout, setTimeout } from 'node:timers';
import { performance } from 'node:perf_hooks';
import { startBare } from '../lib/bare.js';
import { callTool, closeAll, connect, handoffCycle } from '../lib/clients.js';
import { addParticipant, makeHome, startRoom } from '../lib/room.js';
import { listenTasks, openSse } from '../lib/sse.js';
import { openUiSocket } from '../lib/ui-viewer.js';
import { alternate, fmt, fmtMs, median, percentile, spreadPct } from '../lib/stats.js';

/** Subscribers that resolve a per-event promise once every one of them saw a message matching `want`. */
function deliveryTracker(count) {
  let pending = null;
  return {
    onMessage(message, at) {
      if (!pending || !pending.want(message) || pending.seen.has(message.__sub)) return;
      pending.seen.add(message.__sub);
      pending.latencies.push(at - pending.sentAt);
      if (pending.seen.size === count) pending.done();
    },
    /** Sends one event and resolves with each subscriber's delivery latency. */
    async event(want, send) {
      const latencies = [];
      const all = new Promise((done) => (pending = { want, seen: new Set(), latencies, done, sentAt: performance.now() }));
      const current = pending;
      current.sentAt = performance.now();
      await send();
      let timer;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`only ${current.seen.size}/${count} subscribers got the event`)), 15_000);
      });
      try {
        await Promise.race([all, timeout]);
      } finally {
        clearTimeout(timer);
        pending = null;
      }
      return latencies;
    },
  };
}

/**
 * Other work while a side is measured: `start()` runs `one()` in `lanes` loops, each at most `rate / lanes` calls
 * a second (unpaced when rate is Infinity), until `stop()`, which resolves with the calls made per second.
 */
function backgroundLoad(lanes, one) {
  let stopping = false;
  let runs = [];
  let count = 0;
  let startedAt = 0;
  const sleepers = new Set();
  return {
    start(rate = Infinity) {
      stopping = false;
      count = 0;
      startedAt = performance.now();
      runs = Array.from({ length: lanes }, async (_, lane) => {
        // lanes start spread over one interval, not all at once
        for (let i = lane / lanes; !stopping; i++) {
          const wait = startedAt + (i * lanes * 1000) / rate - performance.now();
          if (wait > 0) {
            await new Promise((resolve) => {
              const timer = setTimeout(resolve, wait);
              sleepers.add(() => (clearTimeout(timer), resolve()));
            });
          }
          if (stopping) break;
          count += await one(lane);
        }
      });
    },
    /** The rate is of what was done before stop() (calls in flight still finish, uncounted). */
    async stop() {
      stopping = true;
      const rate = count / ((performance.now() - startedAt) / 1000);
      for (const wake of sleepers) wake();
      sleepers.clear();
      await Promise.all(runs);
      return rate;
    },
  };
}

export default {
  name: 'fanout',
  async run({ smoke, log }) {
    const subscribers = smoke ? 4 : 100;
    const events = smoke ? 4 : 40;
    const rounds = smoke ? 1 : 3;
    const LOAD_PAIRS = smoke ? 1 : 4;
    const home = makeHome('fanout');
    const room = await startRoom(home);
    const bare = await startBare();
    const streams = [];
    const listens = [];
    let clients = [];
    try {
      const agentToken = addParticipant(home, 'agent', 'read,write');
      // a participant may hold 32 connections (maxConnectionsPerParticipant): 25 listen streams per watcher
      const PER_WATCHER = 25;
      const watcherTokens = Array.from({ length: Math.ceil(subscribers / PER_WATCHER) }, (_, i) => addParticipant(home, `watcher-${i}`, 'read,approve'));
      const operator = await connect('2026', room.url, room.token, 'operator');
      const agent = await connect('2026', room.url, agentToken, 'agent');
      clients = [operator, agent];
      const { handoff } = await callTool(operator, 'handoff_create', { summary: 'fanout', to: 'agent' });
      await callTool(agent, 'handoff_accept', { handoffId: handoff.id });
      const loadPairs = [];
      for (let i = 0; i < LOAD_PAIRS; i++) loadPairs.push([await connect('2026', room.url, room.token, `load-op-${i}`), await connect('2026', room.url, agentToken, `load-agent-${i}`)]);
      clients.push(...loadPairs.flat());
      // a handoff cycle: four calls, four committed events
      const roomLoad = backgroundLoad(LOAD_PAIRS, async (lane) => (await handoffCycle(...loadPairs[lane]), 4));
      const bareClients = [];
      for (let i = 0; i <= LOAD_PAIRS; i++) bareClients.push(await connect('2026', bare.url, bare.token, `bare-${i}`));
      clients.push(...bareClients);
      const [bareCaller, ...bareLoaders] = bareClients;
      const bareLoad = backgroundLoad(LOAD_PAIRS, async (lane) => (await callTool(bareLoaders[lane], 'durable_broadcast', { n: -1 }), 1));
      const rates = { room: [], bare: [] };
      /** A side's round while its load runs: the room's as fast as it goes, the bare server's at the rate the room's reached. */
      const underLoad = (round, load, side) => async () => {
        load.start(side === 'room' ? Infinity : median(rates.room));
        try {
          return await round();
        } finally {
          rates[side].push(await load.stop());
        }
      };

      const ours = deliveryTracker(subscribers);
      const base = deliveryTracker(subscribers);
      for (let i = 0; i < subscribers; i++) {
        const token = watcherTokens[Math.floor(i / PER_WATCHER)];
        listens.push(await listenTasks(room.url, token, [handoff.taskId], (m, at) => ours.onMessage({ ...m, __sub: i }, at)));
        streams.push(await openSse(new URL('/fanout', bare.url), { token: bare.token, onMessage: (m, at) => base.onMessage({ ...m, __sub: i }, at) }));
      }
      let k = 0;
      const status = (s) => (m) => m.method === 'notifications/tasks' && m.params?.status === s;
      /** A round of `events` changes: the assignee asks for input, the owner answers; `tracker` times each delivery. */
      const askAndAnswer = (tracker, asked, answered) => async () => {
        const all = [];
        for (let e = 0; e < events; e++) {
          const key = `q${k++}`;
          if (e % 2 === 0) {
            all.push(...(await tracker.event(asked, () => callTool(agent, 'handoff_request_input', { handoffId: handoff.id, requests: { [key]: { message: 'go on?' } } }))));
            all.push(...(await tracker.event(answered, () => callTool(operator, 'handoff_answer_input', { handoffId: handoff.id, answers: { [key]: { action: 'accept', content: { answer: 'yes' } } } }))));
          }
        }
        return all;
      };
      const oursRound = askAndAnswer(ours, status('input_required'), status('working'));
      let n = 0;
      const baseRound = async () => {
        const all = [];
        for (let e = 0; e < events; e++) {
          const id = n++;
          all.push(...(await base.event((m) => m.n === id, () => callTool(bareCaller, 'durable_broadcast', { n: id }))));
        }
        return all;
      };
      await oursRound();
      await baseRound();
      const r = await alternate(rounds, underLoad(oursRound, roomLoad, 'room'), underLoad(baseRound, bareLoad, 'bare'));
      // the same calls' events, to UI sockets; the listen streams are closed first (one client address may hold
      // at most 128 connections, and all of these come from 127.0.0.1)
      for (const l of listens.splice(0)) l.close();
      const sockets = [];
      const ui = deliveryTracker(subscribers);
      for (let i = 0; i < subscribers; i++) sockets.push(await openUiSocket(room.url, room.token, (data, isBinary, at) => !isBinary && ui.onMessage({ ...JSON.parse(data.toString()), __sub: i }, at)));
      streams.push(...sockets);
      const event = (kind) => (m) => m.t === 'event' && m.event?.kind === kind && m.event?.subject === handoff.id;
      const uiRound = askAndAnswer(ui, event('handoff.input_requested'), event('handoff.input_answered'));
      await uiRound();
      const u = await alternate(rounds, underLoad(uiRound, roomLoad, 'room'), underLoad(baseRound, bareLoad, 'bare'));
      const roomRate = median(rates.room);
      const bareRate = median(rates.bare);
      const uo = u.ours.flat();
      const ub = u.baseline.flat();
      const [u50, u99, ub50, ub99] = [percentile(uo, 50), percentile(uo, 99), percentile(ub, 50), percentile(ub, 99)];
      log(`${subscribers} UI sockets: p50 ${fmtMs(u50)} p99 ${fmtMs(u99)}; bare SSE p50 ${fmtMs(ub50)} p99 ${fmtMs(ub99)}`);
      const o = r.ours.flat();
      const b = r.baseline.flat();
      const [o50, o99, b50, b99] = [percentile(o, 50), percentile(o, 99), percentile(b, 50), percentile(b, 99)];
      log(`${subscribers} listeners: p50 ${fmtMs(o50)} p99 ${fmtMs(o99)}; bare SSE p50 ${fmtMs(b50)} p99 ${fmtMs(b99)}; other events ${fmt(roomRate, 0)}/s (room), ${fmt(bareRate, 0)}/s (bare)`);
      const load = `, while ${fmt(roomRate, 0)} other events/s commit`;
      const bareLoadText = `, while it commits and broadcasts ${fmt(bareRate, 0)} others/s`;
      return [
        {
          name: `fanout ${subscribers} listen streams`,
          ours: `p50 ${fmtMs(o50)} p99 ${fmtMs(o99)}${load}`,
          baseline: `p50 ${fmtMs(b50)} p99 ${fmtMs(b99)} bare MCP call, fsync'd commit, SSE broadcast${bareLoadText}`,
          ratio: `p50 ${fmt(o50 / b50, 1)}× p99 ${fmt(o99 / b99, 1)}× ±${fmt(spreadPct(r.ours.map((x) => percentile(x, 50))), 0)}%`,
          goal: 'none set (issue: 1,000 events/s)',
          met: null,
          figures: { subscribers, eventsPerRound: events, samples: o.length, o50, o99, b50, b99, rates },
        },
        {
          name: `fanout ${subscribers} UI sockets`,
          ours: `p50 ${fmtMs(u50)} p99 ${fmtMs(u99)}${load}`,
          baseline: `p50 ${fmtMs(ub50)} p99 ${fmtMs(ub99)} bare MCP call, fsync'd commit, SSE broadcast${bareLoadText}`,
          ratio: `p50 ${fmt(u50 / ub50, 1)}× p99 ${fmt(u99 / ub99, 1)}× ±${fmt(spreadPct(u.ours.map((x) => percentile(x, 50))), 0)}%`,
          goal: 'none set',
          met: null,
          figures: { subscribers, eventsPerRound: events, samples: uo.length, o50: u50, o99: u99, b50: ub50, b99: ub99, rates },
        },
      ];
    } finally {
      for (const s of [...listens, ...streams]) s.close();
      await closeAll(clients);
      await bare.stop();
      await room.stop();
      home.cleanup();
    }
  },
};
