// shell-roundtrip: shell_io sends `echo tok` and waits server-side for the line `tok` (one MCP call), against
// raw node-pty in this process writing the same line and watching its output for the same line. The goal is
// absolute (p50 ≤ 5 ms), so the same run also times the floor of any MCP call on this machine at that moment:
// one no-op call to the bare v2 SDK server, same era and client.
import { clearTimeout, setTimeout } from 'node:timers';
import { performance } from 'node:perf_hooks';
import * as pty from 'node-pty';
import { startBare } from '../lib/bare.js';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { makeHome, startRoom } from '../lib/room.js';
import { alternate, fmt, fmtMs, median, percentile, spreadPct } from '../lib/stats.js';

const SHELL_ENV = { PS1: '$ ', TERM: 'xterm-256color', PATH: process.env.PATH ?? '/usr/bin:/bin' };
// the line the shell prints, not the echoed command line `$ echo tok`; when input is typed ahead of the
// prompt, the kernel echoes it at once and the answer follows the next prompt on its line (`$ tok`)
const TOK_LINE = /(^|\n|\$ )tok\r?\n/;
const TOK_PATTERN = '(^|\\$ )tok\\r?$';

/** Raw node-pty: one shell, `echo tok` written and the answer line awaited, `n` times. */
async function rawRoundtrips(n) {
  const term = pty.spawn('/bin/sh', [], { cols: 120, rows: 32, env: SHELL_ENV });
  let seen = '';
  let waiter = null;
  term.onData((d) => {
    seen += d;
    if (waiter && TOK_LINE.test(seen)) waiter();
  });
  // input typed before the shell set up its terminal may be flushed: wait for the first prompt
  for (let waited = 0; !seen.includes('$ ') && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  const times = [];
  for (let i = 0; i < n; i++) {
    seen = '';
    const t = performance.now();
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`raw node-pty: no "tok" line within 10 s: ${JSON.stringify(seen)}`)), 10_000);
      waiter = () => {
        clearTimeout(timer);
        resolve();
      };
      term.write('echo tok\n');
    });
    waiter = null;
    times.push(performance.now() - t);
  }
  term.kill();
  return times;
}

async function bareCalls(client, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await callTool(client, 'noop', {});
    times.push(performance.now() - t);
  }
  return times;
}

async function oursRoundtrips(client, shellId, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await callTool(client, 'shell_io', {
      shellId,
      text: 'echo tok\n',
      wait: { until: 'match', pattern: TOK_PATTERN, timeoutMs: 10_000 },
      maxBytes: 1024,
    });
    times.push(performance.now() - t);
    if (r.wait?.reason !== 'matched') throw new Error(`shell_io wait ended ${r.wait?.reason}: ${JSON.stringify(r.output)}`);
  }
  return times;
}

export default {
  name: 'shell-roundtrip',
  async run({ smoke, log }) {
    const home = makeHome('shell-rt');
    const room = await startRoom(home);
    const client = await connect('2026', room.url, room.token);
    const bare = await startBare();
    const bareClient = await connect('2026', bare.url, bare.token, 'baseline');
    try {
      const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV });
      const per = smoke ? 5 : 60;
      const rounds = smoke ? 1 : 4;
      // the first prompt, as for the raw shell
      await callTool(client, 'shell_io', { shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: '\\$ $', timeoutMs: 10_000 } });
      await oursRoundtrips(client, shell.id, smoke ? 2 : 10); // warm-up
      await rawRoundtrips(smoke ? 2 : 10);
      await bareCalls(bareClient, smoke ? 2 : 10);
      const r = await alternate(
        rounds,
        () => oursRoundtrips(client, shell.id, per),
        async () => {
          const raw = await rawRoundtrips(per);
          raw.bare = await bareCalls(bareClient, per);
          return raw;
        },
      );
      await callTool(client, 'shell_close', { shellId: shell.id });
      const ours = r.ours.flat();
      const base = r.baseline.flat();
      const p50 = percentile(ours, 50);
      const p99 = percentile(ours, 99);
      const b50 = percentile(base, 50);
      const b99 = percentile(base, 99);
      const noop50 = percentile(r.baseline.flatMap((x) => x.bare), 50);
      log(`shell_io echo tok: p50 ${fmtMs(p50)} p99 ${fmtMs(p99)}; raw node-pty p50 ${fmtMs(b50)} p99 ${fmtMs(b99)}; bare no-op call p50 ${fmtMs(noop50)}`);
      return [
        {
          name: 'shell-roundtrip echo tok → match',
          ours: `p50 ${fmtMs(p50)} p99 ${fmtMs(p99)}`,
          baseline: `p50 ${fmtMs(b50)} p99 ${fmtMs(b99)} raw node-pty; a bare no-op MCP call p50 ${fmtMs(noop50)}`,
          ratio: `p50 ${fmt(p50 / b50, 1)}× raw, ${fmt(p50 / noop50, 2)}× a no-op call ±${fmt(spreadPct(r.ours.map((x) => median(x))), 0)}%`,
          goal: 'p50 ≤ 5 ms',
          met: p50 <= 5,
          figures: { samples: ours.length, p50, p99, baselineP50: b50, baselineP99: b99, bareNoopP50: noop50, rounds: r },
        },
      ];
    } finally {
      await closeAll([client, bareClient]);
      await bare.stop();
      await room.stop();
      home.cleanup();
    }
  },
};
