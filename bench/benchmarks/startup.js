// startup: `commonroom serve` from spawn until its first answered tool call (room_info, one raw 2026
// request), on an empty room and on a room of a busy month (100,000 handoffs, 10,000 graphs, the event and audit
// rings full: bench/lib/history-room.js), the row naming what it holds; against the bare v2 SDK server from spawn to its
// first answered no-op call, and `node -e 0` (the floor: starting Node at all).
import { spawn } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { startBare } from '../lib/bare.js';
import { historyRoom } from '../lib/history-room.js';
import { cpuMsOf, makeHome, startRoom } from '../lib/room.js';
import { alternate, fmt, fmtMs, median, spreadPct } from '../lib/stats.js';

/** One 2026-era tools/call as a bare HTTP request (no SDK handshake: the era needs none). */
function firstCall(url, token, tool) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench-startup', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': tool,
  };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => (res.statusCode === 200 && text.includes('"result"') ? resolve() : reject(new Error(`first call: HTTP ${res.statusCode} ${text.slice(0, 200)}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Spawn → first answered room_info, in ms; `withCpu`: {ms, cpuMs} (the process's CPU time until then). */
export async function oursStartup(home, withCpu = false) {
  const t = performance.now();
  const room = await startRoom(home);
  await firstCall(room.url, room.token, 'room_info');
  home.onAnswer?.();
  const ms = performance.now() - t;
  const cpuMs = cpuMsOf(room.pid);
  await room.stop();
  return withCpu ? { ms, cpuMs } : ms;
}

/** `opts.nodeArgs`: Node flags for the bare server (e.g. --cpu-prof); `opts.onAnswer`: called at its first answer. */
export async function bareStartup(withCpu = false, opts = {}) {
  const t = performance.now();
  const bare = await startBare({ nodeArgs: opts.nodeArgs });
  await firstCall(bare.url, bare.token, 'noop');
  opts.onAnswer?.();
  const ms = performance.now() - t;
  const cpuMs = cpuMsOf(bare.pid);
  await bare.stop();
  return withCpu ? { ms, cpuMs } : ms;
}

async function nodeStartup() {
  const t = performance.now();
  await new Promise((resolve) => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('exit', resolve));
  return performance.now() - t;
}

export default {
  name: 'startup',
  async run({ smoke, log }) {
    // 8: single starts spread widely (a bare server up in ≈ 215 ms, single starts 200–350 ms), and 4 rounds put
    // the same build anywhere in 1.06–1.26× the bare server from one run to the next; 8 keep it within ≈ 0.1×
    const rounds = smoke ? 1 : 8;
    const [handoffs, graphs] = smoke ? [10, 1] : [100_000, 10_000];
    const empty = makeHome('startup-empty');
    const large = makeHome('startup-large');
    try {
      await oursStartup(empty); // creates the room: what is measured is reopening it
      const filled = historyRoom(large, { handoffs, graphs, fresh: smoke });
      const made = filled.cached ? 'copied the cached room' : 'filled a room';
      const holds = `${filled.handoffs} handoffs, ${filled.graphs} graphs, ${filled.eventsKept} events kept of ${filled.events} appended, ${filled.auditRows} audit rows`;
      log(`${made} holding ${holds} in ${fmt(filled.seconds, 0)} s`);
      await bareStartup(); // warm the file cache for both
      await oursStartup(large);
      const r = await alternate(
        rounds,
        async () => ({ empty: await oursStartup(empty), large: await oursStartup(large) }),
        async () => ({ bare: await bareStartup(), node: await nodeStartup() }),
      );
      const e = median(r.ours.map((x) => x.empty));
      const l = median(r.ours.map((x) => x.large));
      const b = median(r.baseline.map((x) => x.bare));
      const n = median(r.baseline.map((x) => x.node));
      log(`empty ${fmtMs(e)}, large ${fmtMs(l)}, bare server ${fmtMs(b)}, node -e 0 ${fmtMs(n)}`);
      const baseline = `bare server ${fmtMs(b)}; node -e 0 ${fmtMs(n)}`;
      return [
        {
          name: 'startup empty room',
          ours: fmtMs(e),
          baseline,
          ratio: `${fmt(e / b, 2)}× bare ±${fmt(spreadPct(r.ours.map((x) => x.empty)), 0)}%`,
          goal: '≤ 1.1× bare',
          met: e / b <= 1.1,
          figures: { rounds: r },
        },
        {
          name: `startup room of a busy month (${holds})`,
          ours: fmtMs(l),
          baseline,
          ratio: `${fmt(l / b, 2)}× bare, ${fmt(l / e, 2)}× empty ±${fmt(spreadPct(r.ours.map((x) => x.large)), 0)}%`,
          goal: '≤ 1.1× bare, flat in history, ≤ 1 s',
          met: l / b <= 1.1 && l / e <= 1.1 && l <= 1000,
          figures: { ...filled },
        },
      ];
    } finally {
      empty.cleanup();
      large.cleanup();
    }
  },
};
