// handoff-cycle: create (operator, to the agent) → accept → complete (the agent) → approve (operator), four
// MCP calls, on both eras, against four no-op calls on the bare v2 SDK server with the same client.
import { performance } from 'node:perf_hooks';
import { startBare } from '../lib/bare.js';
import { closeAll, connect, handoffCycle, noops } from '../lib/clients.js';
import { addParticipant, makeHome, startRoom } from '../lib/room.js';
import { alternate, fmt, fmtMs, median, spreadPct } from '../lib/stats.js';

async function cycles(ms, once) {
  const started = performance.now();
  const deadline = started + ms;
  const times = [];
  while (performance.now() < deadline) {
    const t = performance.now();
    await once();
    times.push(performance.now() - t);
  }
  return { rate: times.length / ((performance.now() - started) / 1000), p50: median(times) };
}

export default {
  name: 'handoff-cycle',
  async run({ smoke, log }) {
    const home = makeHome('handoff');
    const room = await startRoom(home);
    const bare = await startBare();
    const rows = [];
    try {
      const agentToken = addParticipant(home, 'agent', 'read,write');
      const ms = smoke ? 300 : 2000;
      const rounds = smoke ? 1 : 3;
      for (const era of ['2025', '2026']) {
        const operator = await connect(era, room.url, room.token, 'operator');
        const agent = await connect(era, room.url, agentToken, 'agent');
        const base = await connect(era, bare.url, bare.token, 'baseline');
        try {
          const cycle = () => handoffCycle(operator, agent);
          const fourNoops = () => noops(base);
          await cycles(Math.min(ms, 300), cycle);
          await cycles(Math.min(ms, 300), fourNoops);
          const r = await alternate(
            rounds,
            () => cycles(ms, cycle),
            () => cycles(ms, fourNoops),
          );
          const oursRate = median(r.ours.map((x) => x.rate));
          const baseRate = median(r.baseline.map((x) => x.rate));
          const ratio = oursRate / baseRate;
          log(`${era}: ${fmt(oursRate, 1)} cycles/s vs ${fmt(baseRate, 1)} four-no-op/s`);
          rows.push({
            name: `handoff-cycle ${era}`,
            ours: `${fmt(oursRate, 1)} cycles/s (p50 ${fmtMs(median(r.ours.map((x) => x.p50)))})`,
            baseline: `${fmt(baseRate, 1)}/s four no-op calls`,
            ratio: `${fmt(ratio, 2)}× ±${fmt(spreadPct(r.ours.map((x) => x.rate)), 0)}%`,
            goal: '≥ 0.8×',
            met: ratio >= 0.8,
            figures: { era, rounds: r, ratio },
          });
        } finally {
          await closeAll([operator, agent, base]);
        }
      }
    } finally {
      await bare.stop();
      await room.stop();
      home.cleanup();
    }
    return rows;
  },
};
