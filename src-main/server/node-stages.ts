import os from 'node:os';
import path from 'node:path';
import type { LineExtras } from '../api/line-door';
import type { Caller } from '../common/dto';
import { RoomError } from '../common/errors';
import type { DoorEngine, NodeGraphReads } from '../engine/index';

/**
 * What a room node answers beyond the contract, for the room that places graph stages on it (docs/hosts.md):
 * `stage_place` runs one stage, once per name (and `shell_open` starts in this account's home). The name is the placing room's key for that stage's run: asked
 * again (a link that dropped while it asked, a room that restarted), the node answers with the run it has and
 * starts nothing. The run is a one-stage graph of the node's own room, as the caller (an agent's runs in the
 * host's sandbox), its folder taken from this account's home; its state and log are read with tasks_status.
 */
const NAME = /^room-stage [0-9a-f]{40}$/;

export function nodeStageMethods(engine: DoorEngine, graphs: NodeGraphReads): LineExtras {
  /** Names being placed now: a second ask waits for the first's answer (the check and the run are not one step). */
  const placing = new Map<string, Promise<{ graphId: string; placed: boolean }>>();
  return {
    // a shell opened here for the room starts in this account's home (a relative cwd is taken from there), not
    // in the node's own room folder
    shell_open: (caller: Caller, params: unknown) => {
      const open = (params ?? {}) as { cwd?: unknown };
      const cwd = open.cwd === undefined || typeof open.cwd === 'string' ? path.resolve(os.homedir(), open.cwd ?? '.') : open.cwd;
      return engine.call(caller, 'shell_open', { ...open, cwd } as never);
    },
    stage_place: async (caller: Caller, params: unknown) => {
      const { name, spec } = (params ?? {}) as { name?: unknown; spec?: unknown };
      if (typeof name !== 'string' || !NAME.test(name)) throw new RoomError('INVALID_INPUT', 'stage_place: name is the placing room\'s "room-stage <digest>"');
      if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new RoomError('INVALID_INPUT', 'stage_place: spec is the stage\'s {command, cwd?, env?, …}');
      const existing = graphs.named(name);
      if (existing) return { graphId: existing, placed: false };
      const pending = placing.get(name);
      if (pending) return pending;
      const work = (async () => {
        const { cwd, ...rest } = spec as { cwd?: unknown };
        const folder = path.resolve(os.homedir(), typeof cwd === 'string' ? cwd : '.');
        const out = await engine.call(caller, 'tasks_run', { name, maxParallel: 1, stages: [{ ...rest, id: 'run', cwd: folder }] } as never);
        return { graphId: out.graphId, placed: true };
      })();
      placing.set(name, work);
      try {
        return await work;
      } finally {
        placing.delete(name);
      }
    },
  };
}
