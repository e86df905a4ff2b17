import fs from 'node:fs';
import type { Caller } from '../../../common/dto';
import { RoomError } from '../../../common/errors';
import type { Limits } from '../../../common/limits';
import type { GraphRepo } from '../../store/graphs';
import type { LogReader } from '../../tasks/index';
import { readStageLog, unpackArtifact, visibleGraph } from '../graph-views';
import { sliceLog } from './stage-log';
import type { GrowthSignal } from '../../core/growth-signal';

export function logSize(file: string): number {
  try {
    return fs.lstatSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * The reader of graph stages' logs for task-log:// (the task layer asks it first for every task id; it answers
 * null for ids that are not a stage's). Reads at most `maxLogReadBytes` of the log per slice.
 */
export function stageLogReader(repo: GraphRepo, limits: Pick<Limits, 'maxLogReadBytes' | 'maxStageLogBytes'>, logGrowth: GrowthSignal): LogReader {
  const maxReadBytes = limits.maxLogReadBytes;
  // task-log://<graphId>:<stageId>: a stage's output records, resumable by seq (spooled logs too). Readers
  // resume where they left off: the byte offset where a slice of records began is remembered by seq, so a
  // follower never rescans the log from its start, and a spooled log is decompressed once per read.
  const checkpoints = new Map<string, { seq: number; cursor: number }>();
  const stageOf = (caller: Caller, id: string) => {
    const cut = id.indexOf(':');
    if (cut < 0) return null;
    const g = visibleGraph(repo, caller, id.slice(0, cut));
    const stage = repo.stages(g.id).find((x) => x.stageId === id.slice(cut + 1));
    if (!stage) throw new RoomError('NOT_FOUND', 'unknown task');
    return stage;
  };
  return {
    read: (caller, id, fromSeq, limit) => {
      const stage = stageOf(caller, id);
      if (!stage) return null;
      const artifact = repo.artifact(stage.graphId, stage.stageId);
      let unpacked: Buffer | undefined;
      const slice = (cursor: number) => {
        if (!artifact) return readStageLog(repo, stage, cursor, maxReadBytes, limits.maxStageLogBytes);
        unpacked ??= unpackArtifact(artifact, limits.maxStageLogBytes);
        return sliceLog(unpacked, cursor, maxReadBytes, true);
      };
      const known = checkpoints.get(id);
      let cursor = known && known.seq <= fromSeq ? known.cursor : 0;
      const records: { seq: number; stream: string; at: string; text: string }[] = [];
      let more = false;
      for (;;) {
        const part = slice(cursor);
        const first = part.records[0];
        if (first && first.seq <= fromSeq) {
          checkpoints.delete(id);
          checkpoints.set(id, { seq: first.seq, cursor });
          if (checkpoints.size > 1000) checkpoints.delete(checkpoints.keys().next().value as string);
        }
        for (const r of part.records) {
          if (r.seq < fromSeq) continue;
          if (records.length === limit) {
            more = true;
            break;
          }
          records.push(r);
        }
        if (more || !part.more || part.cursor === cursor) break;
        cursor = part.cursor;
      }
      const last = records.at(-1);
      return { records, nextSeq: last ? last.seq + 1 : fromSeq, more };
    },
    // a live stage's log grows in place; a spooled one never changes again
    watch: (caller, id, onGrow) => (stageOf(caller, id) ? logGrowth.on(id, onGrow) : null),
  };
}
