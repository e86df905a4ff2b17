// shell-stream: a command writes V bytes through a shell; (1) a live viewer on the app's UI socket watches them
// with flow control (acknowledging as it consumes: the PTY is paused, never dropped), and (2) an agent reads them
// by cursor with shell_io as fast as it can (largest pages); each against raw node-pty in this process reading
// the same command's output. Also the room process's memory from /proc: VmRSS before, VmHWM (peak) after.
// The agent part has a second baseline, the floor of the protocol: the bare SDK server (bench/lib/bare.js)
// answering the same bytes in ready-made pages of the size the agent asks for (1 MiB, whatever the room's pages
// were: a floor that followed the room's own page sizes moved with them), in the shape every room tool answers
// (the output in structuredContent and again in the JSON text block), read by the same client, with no shell
// behind it: what those answers cost with nothing else to do. The viewer part's second baseline is its
// floor: the same viewer watching a shell that bench/lib/bare-relay.js relays (raw node-pty, the room's binary
// frames, batching and flow control over a loopback WebSocket), i.e. what any live viewer in another process costs.
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { callTool, closeAll, connect } from '../lib/clients.js';
import { produce, rawFlood, SHELL_ENV } from '../lib/flood.js';
import { makeHome, memoryOf, startRoom } from '../lib/room.js';
import { BARE_RELAY, startBare } from '../lib/bare.js';
import { UiViewer } from '../lib/ui-viewer.js';
import { alternate, fmt, median, spreadPct } from '../lib/stats.js';

const MiB = 2 ** 20;
// the largest page shell_io allows (1 MiB); BENCH_STREAM_PAGE_KIB=256 gives the page size before it was raised
const PAGE = Number(process.env.BENCH_STREAM_PAGE_KIB ?? 1024) * 1024;

/** One agent: sends the command, then reads pages by cursor until the end marker; counts what it missed. */
export async function agent(client, shellId, bytes) {
  const t = performance.now();
  let r = await callTool(client, 'shell_io', { shellId, text: `${produce(bytes)}\n`, format: 'raw', maxBytes: PAGE });
  let got = 0;
  let dropped = 0;
  let pages = 1;
  const sizes = [];
  let tail = '';
  // cursors are opaque base64url of [kind, shell, offset]: the bench reads the offset to count bytes and gaps
  const at = (cursor) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))[2];
  for (;;) {
    got += at(r.nextCursor) - at(r.cursor);
    sizes.push(Buffer.byteLength(r.output));
    tail = (tail + r.output).slice(-64);
    if (/BENCHEND/.test(tail)) break;
    const cursor = r.nextCursor;
    r = await callTool(client, 'shell_io', { shellId, cursor, format: 'raw', maxBytes: PAGE });
    pages++;
    if (r.truncated || at(r.cursor) > at(cursor)) dropped += at(r.cursor) - at(cursor);
  }
  return { ms: performance.now() - t, got, dropped, pages, sizes };
}

/** The protocol's floor: pages of ready-made output of these sizes read from the bare server, one call after another. */
async function bulkFloor(client, sizes) {
  const t = performance.now();
  for (const bytes of sizes) await client.callTool({ name: 'bulk', arguments: { bytes: Math.max(1, bytes) } });
  return { ms: performance.now() - t, bytes: sizes.reduce((sum, n) => sum + n, 0) };
}

/** Resets the process's peak RSS (VmHWM) to its RSS now, so each part's peak is its own (Linux ≥ 4.0). */
function resetPeak(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // not allowed here: the peak then covers the whole run so far (said in the figures)
  }
  return memoryOf(pid);
}

/** The viewer part: alternating rounds of the command watched through the UI socket and of raw node-pty. */
async function viewerRounds(room, client, bytes, rounds) {
  const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV, name: 'bench viewer' });
  const viewer = await UiViewer.open(room.url, room.token);
  const relay = await startBare({ script: BARE_RELAY });
  const relayed = await UiViewer.open(relay.url, relay.token);
  try {
    viewer.attach(shell.id);
    relayed.attach('relayed');
    const type = (n) => () => callTool(client, 'shell_io', { shellId: shell.id, text: `${produce(n)}\n`, maxBytes: 1 });
    const typeRelayed = (n) => async () => relayed.ws.send(JSON.stringify({ t: 'type', text: `${produce(n)}\n` }));
    // warm-ups (and the shells' first prompts), not counted
    await viewer.watch(64 * 1024, type(64 * 1024));
    await relayed.watch(64 * 1024, typeRelayed(64 * 1024));
    const before = resetPeak(room.pid);
    const r = await alternate(
      rounds,
      () => viewer.watch(bytes, type(bytes)),
      async () => ({ ...(await rawFlood(bytes)), relayed: await relayed.watch(bytes, typeRelayed(bytes)) }),
    );
    const after = memoryOf(room.pid);
    await callTool(client, 'shell_close', { shellId: shell.id });
    return { r, before, after, frames: viewer.frames };
  } finally {
    viewer.close();
    relayed.close();
    await relay.stop();
  }
}

function viewerRow(bytes, { r, before, after, frames }) {
  const oursMs = median(r.ours.map((x) => x.ms));
  const rawMs = median(r.baseline.map((x) => x.ms));
  const relayedMs = median(r.baseline.map((x) => x.relayed.ms));
  const ratio = rawMs / oursMs;
  const growthMiB = (after.hwmKiB - before.rssKiB) / 1024;
  // nothing lost: every round's output arrived whole (no gap between frames, none marked truncated, exactly
  // `bytes` × 'y' between the echoed command line and the marker, nothing else)
  const intact = r.ours.every((x) => x.lost === 0 && x.truncatedFrames === 0 && x.missing === 0 && x.other === 0);
  const lostBytes = r.ours.reduce((sum, x) => sum + x.lost + Math.abs(x.missing) + x.other, 0);
  return {
    name: `shell-stream live viewer with flow control (UI socket), ${bytes / MiB} MiB`,
    ours: `${fmt(mibps(bytes, oursMs), 0)} MiB/s, ${intact ? 'nothing lost' : `${lostBytes} bytes lost or wrong`}, RSS +${fmt(growthMiB, 0)} MiB`,
    baseline: `${fmt(mibps(bytes, rawMs), 0)} MiB/s raw node-pty; ${fmt(mibps(bytes, relayedMs), 0)} MiB/s the same viewer on a bare relay of raw node-pty (the floor: ${fmt(rawMs / relayedMs, 2)}× raw)`,
    ratio: `${fmt(ratio, 2)}× (${fmt(relayedMs / oursMs, 2)}× the floor) ±${fmt(spreadPct(r.ours.map((x) => x.ms)), 0)}%`,
    goal: '≥ 0.8× raw, nothing lost, RSS growth ≤ 64 MiB',
    met: ratio >= 0.8 && intact && growthMiB <= 64,
    floor: rawMs / relayedMs,
    figures: { bytes, rounds: r, memoryBefore: before, memoryAfter: after, growthMiB, intact, frames, relayedMs },
  };
}

const mibps = (bytes, ms) => bytes / MiB / (ms / 1000);

export default {
  name: 'shell-stream',
  async run({ smoke, log }) {
    // the issue's size is 256 MiB (BENCH_STREAM_MIB=256); 64 MiB keeps the suite within its 10 minutes on a loaded machine
    const bytes = smoke ? MiB : Number(process.env.BENCH_STREAM_MIB ?? 64) * MiB;
    const rounds = smoke ? 1 : 4;
    const viewerRoundCount = smoke ? 1 : 4;
    const home = makeHome('shell-stream');
    const room = await startRoom(home);
    const client = await connect('2026', room.url, room.token);
    try {
      // the viewer first, on a shell of its own (a viewer attached to the agent's shell would pace it)
      const watched = await viewerRounds(room, client, bytes, viewerRoundCount);
      const viewed = viewerRow(bytes, watched);
      log(`${bytes / MiB} MiB: viewer ${viewed.ours}; ${viewed.baseline}`);
      const { shell } = await callTool(client, 'shell_open', { shell: '/bin/sh', args: [], env: SHELL_ENV });
      const bare = await startBare();
      const bareClient = await connect('2026', bare.url, bare.token);
      let r;
      let after;
      let before;
      let bareBefore;
      let bareAfter;
      try {
        await bulkFloor(bareClient, new Array(16).fill(PAGE)); // its warm-up
        before = resetPeak(room.pid);
        bareBefore = resetPeak(bare.pid);
        // the floor's pages: the same bytes in pages of the size asked for, the last one what is left
        const floorPages = Array.from({ length: Math.ceil(bytes / PAGE) }, (_, i) => Math.min(PAGE, bytes - i * PAGE));
        r = await alternate(
          rounds,
          async () => {
            const round = await agent(client, shell.id, bytes);
            return { ...round, sizes: undefined, pageKiB: median(round.sizes) / 1024 };
          },
          async () => ({ ...(await rawFlood(bytes)), floor: await bulkFloor(bareClient, floorPages) }),
        );
        after = memoryOf(room.pid);
        bareAfter = memoryOf(bare.pid);
      } finally {
        await closeAll([bareClient]);
        await bare.stop();
      }
      await callTool(client, 'shell_close', { shellId: shell.id });
      const oursMs = median(r.ours.map((x) => x.ms));
      const rawMs = median(r.baseline.map((x) => x.ms));
      // MiB/s of what was answered: the floor's pages carry all the bytes, the agent's what it read (not what it missed)
      const floorMiBps = median(r.baseline.map((x) => x.floor.bytes / MiB / (x.floor.ms / 1000)));
      const oursMiBps = median(r.ours.map((x) => (bytes - x.dropped) / MiB / (x.ms / 1000)));
      const pageKiB = median(r.ours.map((x) => x.pageKiB));
      const ratio = rawMs / oursMs;
      const growthMiB = (after.hwmKiB - before.rssKiB) / 1024;
      const bareGrowthMiB = (bareAfter.hwmKiB - bareBefore.rssKiB) / 1024;
      const droppedMiB = median(r.ours.map((x) => x.dropped)) / MiB;
      log(`${bytes / MiB} MiB: agent ${fmt(mibps(bytes, oursMs), 0)} MiB/s, raw ${fmt(mibps(bytes, rawMs), 0)} MiB/s, peak RSS +${fmt(growthMiB, 0)} MiB`);
      return [
        {
          name: `shell-stream agent by cursor, ${bytes / MiB} MiB`,
          ours: `${fmt(mibps(bytes, oursMs), 0)} MiB/s, ${fmt(droppedMiB, 1)} MiB dropped (reported truncated), RSS +${fmt(growthMiB, 0)} MiB`,
          baseline: `${fmt(mibps(bytes, rawMs), 0)} MiB/s raw node-pty; ${fmt(floorMiBps, 0)} MiB/s answered by a bare SDK server, ready-made pages of the ${fmt(PAGE / 1024, 0)} KiB asked for in the same shape (the protocol's floor; its RSS +${fmt(bareGrowthMiB, 0)} MiB); the room's pages p50 ${fmt(pageKiB, 0)} KiB`,
          ratio: `${fmt(ratio, 2)}× (answered: ${fmt(oursMiBps / floorMiBps, 2)}× the floor) ±${fmt(spreadPct(r.ours.map((x) => x.ms)), 0)}%`,
          goal: '≥ 0.5×, RSS growth ≤ 64 MiB',
          met: ratio >= 0.5 && growthMiB <= 64,
          floor: floorMiBps / mibps(bytes, rawMs),
          figures: { bytes, rounds: r, memoryBefore: before, memoryAfter: after, growthMiB, droppedMiB, floorMiBps, oursMiBps, pageKiB, bareGrowthMiB },
        },
        viewed,
      ];
    } finally {
      await closeAll([client]);
      await room.stop();
      home.cleanup();
    }
  },
};
