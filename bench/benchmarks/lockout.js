// lockout: what one local program can do to everyone else's calls. Another agent's call (room_info, a 2026 MCP
// client) while 200 sockets sit idle without ever sending a token and one agent holds 200 long polls at once
// (tasks_status waits, each on a connection of its own: it is held to its share, the rest are refused), against
// the same call with neither, alternating rounds in one run. The room counts connections by who holds them
// (ConnectionBudget), so the load costs the others only what serving it costs.
import { Buffer } from 'node:buffer';
import net from 'node:net';
import { clearTimeout, setTimeout } from 'node:timers';
import { performance } from 'node:perf_hooks';
import { addParticipant, makeHome, startRoom } from '../lib/room.js';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { alternate, fmt, fmtMs, median, percentile, spreadPct } from '../lib/stats.js';

async function latencies(client, ms) {
  const times = [];
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    const t = performance.now();
    await callTool(client, 'room_info');
    times.push(performance.now() - t);
  }
  return { p50: median(times), p99: percentile(times, 99), n: times.length };
}

function openSocket(port) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/** 200 idle sockets and `hog`'s 200 long polls; resolves once they are all in place, with how many polls were held. */
async function load(room, hogToken, graphId, idle, polls) {
  const port = Number(room.url.port);
  const sockets = [];
  for (let i = 0; i < idle; i++) sockets.push(await openSocket(port));
  let held = 0;
  const answered = [];
  for (let i = 0; i < polls; i++) {
    const s = await openSocket(port);
    sockets.push(s);
    const body = JSON.stringify({ graphId, waitMs: 25_000 });
    answered.push(
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve('held'), 500);
        s.once('data', (d) => (clearTimeout(timer), resolve(d.toString().startsWith('HTTP/1.1 503') ? 'refused' : 'answered')));
      }),
    );
    s.write(`POST /api/tasks_status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${hogToken}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  for (const a of await Promise.all(answered)) if (a === 'held') held++;
  return { held, close: () => sockets.forEach((s) => s.destroy()) };
}

export default {
  name: 'lockout',
  async run({ smoke, log }) {
    const home = makeHome('lockout');
    const room = await startRoom(home, ['--room', home.roomFile]);
    try {
      const hog = addParticipant(home, 'hog', 'read,write');
      const other = await connect('2026', room.url, addParticipant(home, 'other', 'read,write'), 'other');
      const hogClient = await connect('2026', room.url, hog, 'hog');
      const { graphId } = await callTool(hogClient, 'tasks_run', { name: 'hold', stages: [{ id: 'wait', command: ['sleep', '600'] }] });
      const idle = smoke ? 40 : 200;
      const polls = smoke ? 40 : 200;
      const ms = smoke ? 300 : 2000;
      const rounds = smoke ? 1 : 6;
      await latencies(other, smoke ? 200 : 2000); // warm-up
      let held = 0;
      const r = await alternate(
        rounds,
        async () => {
          const l = await load(room, hog, graphId, idle, polls);
          held = l.held;
          try {
            return await latencies(other, ms);
          } finally {
            l.close();
            await new Promise((resolve) => setTimeout(resolve, 300)); // the room sees the sockets go
          }
        },
        () => latencies(other, ms),
      );
      const ratios = r.ours.map((x, i) => x.p50 / r.baseline[i].p50);
      const ratio = median(ratios);
      log(`loaded p50 ${fmtMs(median(r.ours.map((x) => x.p50)))} vs unloaded ${fmtMs(median(r.baseline.map((x) => x.p50)))}; ${held} of ${polls} polls held`);
      await closeAll([other, hogClient]);
      return [
        {
          name: 'lockout other-agent call',
          ours: `room_info p50 ${fmtMs(median(r.ours.map((x) => x.p50)))} (p99 ${fmtMs(median(r.ours.map((x) => x.p99)))}) beside ${idle} idle sockets and one agent's ${polls} long polls (${held} held, the rest refused)`,
          baseline: `p50 ${fmtMs(median(r.baseline.map((x) => x.p50)))} (p99 ${fmtMs(median(r.baseline.map((x) => x.p99)))}) with neither`,
          ratio: `${fmt(ratio, 2)}× ±${fmt(spreadPct(ratios), 0)}%`,
          goal: '≤ 2× the unloaded latency',
          met: ratio <= 2,
        },
      ];
    } finally {
      await room.stop();
      home.cleanup();
    }
  },
};
