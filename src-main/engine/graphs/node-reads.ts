import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { encodeCursor } from '../core/paging';
import type { Room } from '../room/index';
import { GraphRepo } from '../store/graphs';
import { visibleGraph } from './graph-views';
import { readRawLog } from './logs/stage-log';

/**
 * What a room node (server/room-node.ts) reads of its own graphs: the run of a stage placed on it by name (so
 * a stage asked for twice runs once), whether any graph is still running (a node with work never idles out),
 * and a stage's log as its file holds it, for the placing room's copy.
 */
export interface NodeGraphReads {
  named(name: string): string | null;
  unfinished(): number;
  /** tasks_status's cursor for byte `offset` of a stage's log. */
  logCursor(graphId: string, stageId: string, offset: number): string;
  /**
   * The stage's whole log records from byte `offset`, as the file has them (at most `maxBytes`), if `caller` may
   * see its graph; null while it has no file (not started yet; spooled, its file gone): tasks_status reads it then.
   */
  rawLog(caller: Caller, graphId: string, stageId: string, offset: number, maxBytes: number): { text: string; next: number; size: number } | null;
}

export function nodeGraphReads(room: Room): NodeGraphReads {
  const repo = new GraphRepo(room.db);
  return {
    named: (name) => repo.named(name)?.id ?? null,
    unfinished: () => repo.countUnfinished(),
    logCursor: (graphId, stageId, offset) => encodeCursor('stage-log', `${graphId}:${stageId}`, [offset]),
    rawLog: (caller, graphId, stageId, offset, maxBytes) => {
      const g = visibleGraph(repo, caller, graphId);
      const stage = repo.stages(g.id).find((s) => s.stageId === stageId);
      if (!stage) throw new RoomError('NOT_FOUND', `graph ${graphId} has no stage "${stageId}"`);
      if (repo.artifact(g.id, stageId)) return null;
      return readRawLog(stage.logPath, offset, maxBytes);
    },
  };
}
