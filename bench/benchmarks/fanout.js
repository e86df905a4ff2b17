// fanout: 100 subscriptions/listen streams on one handoff task while its status changes (the assignee asks
// for input, the owner answers: each call commits an event and a task change). Delivery latency: from the
// call being sent to each subscriber receiving the notification. Baseline: the bare server broadcasting one
// POSTed message to 100 plain SSE streams, timed the same way.
import { clearTimeout, setTimeout } from 'node:timers';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { startBare } from '../lib/bare.js';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { addParticipant, makeHome, startRoom } from '../lib/room.js';
import { listenTasks, openSse } from '../lib/sse.js';
import { alternate, fmt, fmtMs, percentile, spreadPct } from '../lib/stats.js';

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

function post(url, token, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export default {
  name: 'fanout',
  async run({ smoke, log }) {
    const subscribers = smoke ? 4 : 100;
    const events = smoke ? 4 : 40;
    const rounds = smoke ? 1 : 3;
    const home = makeHome('fanout');
    const room = await startRoom(home);
    const bare = await startBare();
    const streams = [];
    let clients = [];
    try {
      const agentToken = addParticipant(home, 'agent', 'read,write');
      // at most 64 listen streams per participant: the rest listen as a second watcher who may see every task
      const watcherToken = addParticipant(home, 'watcher', 'read,approve');
      const operator = await connect('2026', room.url, room.token, 'operator');
      const agent = await connect('2026', room.url, agentToken, 'agent');
      clients = [operator, agent];
      const { handoff } = await callTool(operator, 'handoff_create', { summary: 'fanout', to: 'agent' });
      await callTool(agent, 'handoff_accept', { handoffId: handoff.id });

      const ours = deliveryTracker(subscribers);
      const base = deliveryTracker(subscribers);
      for (let i = 0; i < subscribers; i++) {
        const token = i < subscribers / 2 ? room.token : watcherToken;
        streams.push(await listenTasks(room.url, token, [handoff.taskId], (m, at) => ours.onMessage({ ...m, __sub: i }, at)));
        streams.push(await openSse(new URL('/fanout', bare.url), { token: bare.token, onMessage: (m, at) => base.onMessage({ ...m, __sub: i }, at) }));
      }
      let k = 0;
      const status = (s) => (m) => m.method === 'notifications/tasks' && m.params?.status === s;
      const oursRound = async () => {
        const all = [];
        for (let e = 0; e < events; e++) {
          const key = `q${k++}`;
          if (e % 2 === 0) {
            all.push(...(await ours.event(status('input_required'), () => callTool(agent, 'handoff_request_input', { handoffId: handoff.id, requests: { [key]: { message: 'go on?' } } }))));
            all.push(...(await ours.event(status('working'), () => callTool(operator, 'handoff_answer_input', { handoffId: handoff.id, answers: { [key]: { action: 'accept', content: { answer: 'yes' } } } }))));
          }
        }
        return all;
      };
      let n = 0;
      const baseRound = async () => {
        const all = [];
        for (let e = 0; e < events; e++) {
          const id = n++;
          all.push(...(await base.event((m) => m.n === id, () => post(new URL('/emit', bare.url), bare.token, JSON.stringify({ n: id })))));
        }
        return all;
      };
      await oursRound();
      await baseRound();
      const r = await alternate(rounds, oursRound, baseRound);
      const o = r.ours.flat();
      const b = r.baseline.flat();
      const [o50, o99, b50, b99] = [percentile(o, 50), percentile(o, 99), percentile(b, 50), percentile(b, 99)];
      log(`${subscribers} listeners: p50 ${fmtMs(o50)} p99 ${fmtMs(o99)}; bare SSE p50 ${fmtMs(b50)} p99 ${fmtMs(b99)}`);
      return [
        {
          name: `fanout ${subscribers} listen streams`,
          ours: `p50 ${fmtMs(o50)} p99 ${fmtMs(o99)}`,
          baseline: `p50 ${fmtMs(b50)} p99 ${fmtMs(b99)} bare SSE`,
          ratio: `p50 ${fmt(o50 / b50, 1)}× p99 ${fmt(o99 / b99, 1)}× ±${fmt(spreadPct(r.ours.map((x) => percentile(x, 50))), 0)}%`,
          goal: 'none set (issue: 1,000 events/s)',
          met: null,
          figures: { subscribers, eventsPerRound: events, samples: o.length, o50, o99, b50, b99 },
        },
        {
          name: 'fanout UI sockets',
          ours: 'not measured',
          baseline: '',
          ratio: '',
          goal: '',
          met: null,
          figures: { why: 'the UI door is being built' },
        },
      ];
    } finally {
      for (const s of streams) s.close();
      await closeAll(clients);
      await bare.stop();
      await room.stop();
      home.cleanup();
    }
  },
};
