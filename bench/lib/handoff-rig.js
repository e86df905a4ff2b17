// What the handoff benchmark and tools (handoff-cycle, cpu-per-call, syscalls-per-cycle) each set up: a room (the
// current out/, or the build of `bin`) with an agent who may read and write, and the bare server; then, per era,
// the clients — the operator and the agent on the room, a baseline client on the bare server — with the cycle
// and its two baselines.
import path from 'node:path';
import { startBare } from './bare.js';
import { closeAll, connect, handoffCycle, noops } from './clients.js';
import { addParticipant, makeHome, startRoom } from './room.js';

/**
 * Runs `work({ room, bare, withEra })` with the room and the bare server started, and stops and removes both
 * afterwards. `withEra(era, use)` connects that era's clients, runs `use({ cycle, fourNoops, fourDurable })`
 * and closes them.
 */
export async function withHandoffRig(name, bin, work) {
  const home = makeHome(name);
  if (bin) home.bin = path.resolve(bin);
  const room = await startRoom(home);
  const bare = await startBare();
  try {
    const agentToken = addParticipant(home, 'agent', 'read,write');
    const withEra = async (era, use) => {
      const operator = await connect(era, room.url, room.token, 'operator');
      const agent = await connect(era, room.url, agentToken, 'agent');
      const base = await connect(era, bare.url, bare.token, 'baseline');
      try {
        return await use({
          cycle: () => handoffCycle(operator, agent),
          fourNoops: () => noops(base),
          fourDurable: () => noops(base, 4, 'durable_noop'),
        });
      } finally {
        await closeAll([operator, agent, base]);
      }
    };
    return await work({ room, bare, withEra });
  } finally {
    await bare.stop();
    await room.stop();
    home.cleanup();
  }
}
