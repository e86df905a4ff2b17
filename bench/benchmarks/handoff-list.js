// handoff-list: a page of `handoff_list` (and of `handoff_history`) as history grows, through MCP (2026 client):
// rooms holding 1,000, 100,000 and 1,000,000 ended handoffs (a month of four agents' work written straight into
// the table, bench/lib/handoff-room.js), each with the same 30 open handoffs made through the room's calls after
// its start (15 addressed to agent-0, 15 open to anyone: a room lets 32 tasks wait at once). Shapes: the open
// handoffs as the operator sees them (approve: everything) and as agent-0 sees them (its own and those open to
// anyone: the per-participant visibility), agent-0's handoffs of any status, and a page of ended handoffs
// (handoff_history, approve). Each round times each shape on each room in turn (the order rotating), one client
// calling in a loop; the figure is the median call. Baseline: the same page on the room of 1,000 handoffs (the
// smallest that fills every page), in the same rounds. Goal: flat (≤ 1.5× at a million handoffs); before
// migration 012 a status filter read every handoff ever made (35 ms at 74,500, ~350 ms at 750,000).
import { callLoop, callTool, closeAll, connect } from '../lib/clients.js';
import { handoffRoom } from '../lib/handoff-room.js';
import { addParticipant, makeHome, startRoom } from '../lib/room.js';
import { fmt, fmtMs, median, spreadPct } from '../lib/stats.js';

const SHAPES = [
  { label: 'status open, with approve', who: 'operator', tool: 'handoff_list', args: { status: 'open', limit: 50 } },
  { label: 'status open, as an agent (its own and open to anyone)', who: 'agent', tool: 'handoff_list', args: { status: 'open', limit: 50 } },
  { label: 'any status, as an agent', who: 'agent', tool: 'handoff_list', args: { limit: 50 } },
  { label: 'handoff_history page, with approve', who: 'operator', tool: 'handoff_history', args: { limit: 50 } },
];

/** A room of `count` ended handoffs, started, with agent-0…3 and the 30 open handoffs; its two clients. */
async function listRoom(count, smoke, log) {
  const home = makeHome(`list-${count}`);
  const made = handoffRoom(home, count, { fresh: smoke });
  log(`${made.cached ? 'copied' : 'filled'} a room of ${made.handoffs} handoffs in ${fmt(made.seconds, 0)} s`);
  const room = await startRoom(home);
  const tokens = [0, 1, 2, 3].map((i) => addParticipant(home, `agent-${i}`, 'read,write'));
  const operator = await connect('2026', room.url, room.token, 'operator');
  const agent = await connect('2026', room.url, tokens[0], 'agent-0');
  for (let i = 0; i < 30; i++) await callTool(operator, 'handoff_create', { summary: `open ${i}`, ...(i % 2 === 1 ? {} : { to: 'agent-0' }) });
  return { count, home, room, clients: { operator, agent } };
}

export default {
  name: 'handoff-list',
  async run({ smoke, log }) {
    const sizes = smoke ? [100, 1000] : [1000, 100_000, 1_000_000];
    // 9 rounds of 1 s: with others' load on the machine, 5 of 0.6 s moved a ratio by ±100 % and more
    const rounds = smoke ? 1 : 9;
    const ms = smoke ? 100 : 1000;
    const rooms = [];
    try {
      for (const n of sizes) rooms.push(await listRoom(n, smoke, log));
      // per shape and room, one median call per round
      const figures = SHAPES.map(() => rooms.map(() => []));
      for (const r of rooms) for (const s of SHAPES) await callLoop([r.clients[s.who]], s.tool, s.args, Math.min(ms, 200)); // warm-up
      for (let round = 0; round < rounds; round++) {
        for (let si = 0; si < SHAPES.length; si++) {
          const s = SHAPES[si];
          for (let k = 0; k < rooms.length; k++) {
            const ri = (k + round + si) % rooms.length;
            const result = await callLoop([rooms[ri].clients[s.who]], s.tool, s.args, ms);
            figures[si][ri].push(median(result.latencies));
          }
        }
      }
      const rows = [];
      SHAPES.forEach((s, si) => {
        const empty = figures[si][0];
        for (let ri = 1; ri < rooms.length; ri++) {
          const ours = figures[si][ri];
          const ratios = ours.map((x, i) => x / empty[i]);
          const ratio = median(ratios);
          const name = `handoff-list ${s.label}, ${rooms[ri].count.toLocaleString('en')} handoffs`;
          log(`${name}: ${fmtMs(median(ours))} vs ${fmtMs(median(empty))} at ${rooms[0].count}`);
          rows.push({
            name,
            ours: `p50 ${fmtMs(median(ours))} a page of 50`,
            baseline: `p50 ${fmtMs(median(empty))} the same page in a room of ${rooms[0].count.toLocaleString('en')} handoffs`,
            ratio: `${fmt(ratio, 2)}× ±${fmt(spreadPct(ratios), 0)}%`,
            goal: `≤ 1.5× the room of ${rooms[0].count.toLocaleString('en')} (flat)`,
            met: ratio <= 1.5,
            figures: { shape: s, handoffs: rooms[ri].count, ours, empty, ratios },
          });
        }
      });
      return rows;
    } finally {
      for (const r of rooms) {
        await closeAll(Object.values(r.clients));
        await r.room.stop();
        r.home.cleanup();
      }
    }
  },
};
