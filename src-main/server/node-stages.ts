import os from 'node:os';
import path from 'node:path';
import type { LineExtras } from '../api/line-door';
import type { Caller } from '../common/dto';
import { RoomError } from '../common/errors';
import { LIMITS } from '../common/limits';
import type { DoorEngine, NodeGraphReads } from '../engine/index';

/**
 * What a room node answers beyond the contract, for the room that places graph stages on it (docs/hosts.md):
 * `stage_place` runs one stage, once per name (and `shell_open` starts in this account's home). The name is the placing room's key for that stage's run: asked
 * again (a link that dropped while it asked, a room that restarted), the node answers with the run it has and
 * starts nothing. The run is a one-stage graph of the node's own room, as the caller (an agent's runs in the
 * host's sandbox), its folder taken from this account's home; its state and log are read with tasks_status,
 * or with `stage_log`: the stage and up to a MiB of its log's records as the file holds them, from a byte offset
 * (waiting, as tasks_status does, until there is more or the stage ended), which the room appends to its copy as
 * they are: nothing is parsed or written again on either side.
 */
const NAME = /^room-stage [0-9a-f]{40}$/;
/** The one stage of a placed run's graph. */
const RUN = 'run';
/** The most of a stage's log one `stage_log` answer holds. */
const STAGE_LOG_BYTES = 1024 * 1024;

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
    stage_log: async (caller: Caller, params: unknown) => {
      const { graphId, offset, waitMs } = (params ?? {}) as { graphId?: unknown; offset?: unknown; waitMs?: unknown };
      if (typeof graphId !== 'string' || graphId.length > 200) throw new RoomError('INVALID_INPUT', 'stage_log: graphId is the id stage_place answered');
      if (!Number.isSafeInteger(offset) || (offset as number) < 0) throw new RoomError('INVALID_INPUT', 'stage_log: offset is a byte offset in the log (0 or more)');
      const wait = waitMs === undefined ? 0 : waitMs;
      if (!Number.isInteger(wait) || (wait as number) < 0) throw new RoomError('INVALID_INPUT', 'stage_log: waitMs is a number of milliseconds (0 or more)');
      // the wait, the caller's right to the graph and the stage's state: as tasks_status has them (its log slice unused)
      const status = await engine.call(caller, 'tasks_status', {
        graphId,
        stageId: RUN,
        cursor: graphs.logCursor(graphId, RUN, offset as number),
        maxBytes: 1,
        waitMs: Math.min(wait as number, LIMITS.maxStatusWaitMs),
      });
      const stage = 'stage' in status ? status.stage : undefined;
      // read after the state: a stage seen ended has all its log in the file by then
      const raw = graphs.rawLog(caller, graphId, RUN, offset as number, STAGE_LOG_BYTES);
      if (!raw) return { stage, spooled: true };
      return { stage, text: raw.text, next: raw.next, more: raw.next < raw.size };
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
        const out = await engine.call(caller, 'tasks_run', { name, maxParallel: 1, stages: [{ ...rest, id: RUN, cwd: folder }] } as never);
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
