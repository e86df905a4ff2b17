import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { checkPrivateFile, ensurePrivateDir, writePrivateFileBy } from '../../core/fs-safe';
import type { GraphRecord, GraphRepo } from '../../store/graphs';
import type { EngineContext } from '../../room/index';
import { readLogFile } from './stage-log';
import { logSize } from './stage-log-reader';
import { isDiskFullError } from '../../../common/errors';

/**
 * The room's retained artifact store: `<room>.md.commonroom.d/artifacts/<graphId>.logs.gz`, one archive per ended
 * graph holding a gzip member per stage log (gunzip reads the whole archive as the logs one after another), each
 * member indexed in graph_artifacts by its offset and length. Rooms spooled by schema 6 have a file per stage
 * (`artifacts/<graphId>/<stageId>.log.gz`, no offset): those stay readable. Logs are spooled when the room closes
 * or their retention ends; the archive is written whole (a temp file, fsynced, renamed) before the index names
 * it, and the loose log files are removed only after the index committed, so a crash at any point loses nothing.
 */
export function spoolGraph(ctx: EngineContext, repo: GraphRepo, graph: GraphRecord, artifactRoot: string): number {
  ensurePrivateDir(artifactRoot);
  const stages = repo.stages(graph.id);
  const archive = path.join(artifactRoot, `${graph.id}.logs.gz`);
  const written: { stageId: string; offset: number; raw: number; stored: number; sha: string }[] = [];
  // an empty log is one made ahead for a stage that never started (a started one holds at least its attempt's note)
  const logged = stages.filter((s) => checkPrivateFile(s.logPath) !== 'absent' && logSize(s.logPath) > 0);
  // a graph none of whose stages wrote a log (all cancelled before they started) has nothing to archive
  if (logged.length > 0) {
    writePrivateFileBy(archive, (append) => {
      let offset = 0;
      for (const s of logged) {
        const raw = readLogFile(s.logPath);
        const packed = zlib.gzipSync(raw, { level: 6 });
        append(packed);
        written.push({ stageId: s.stageId, offset, raw: raw.length, stored: packed.length, sha: crypto.createHash('sha256').update(raw).digest('hex') });
        offset += packed.length;
      }
    });
  }
  try {
    ctx.commit(() => {
      const at = ctx.now();
      for (const w of written) {
        repo.insertArtifact({ graphId: graph.id, stageId: w.stageId, path: archive, rawBytes: w.raw, storedBytes: w.stored, byteOffset: w.offset, sha256: w.sha, createdAt: at });
      }
      repo.setGraph(graph.id, { spooledAt: at });
      return {
        value: undefined,
        events: [{ kind: 'graph.logs_spooled', actor: null, subject: graph.id, data: { stages: written.length, bytes: written.reduce((n, w) => n + w.raw, 0) } }],
      };
    });
  } catch (error) {
    // no row names the archive: it goes (a full disk is not kept full by a copy of logs that are still loose)
    if (written.length > 0) fs.rmSync(archive, { force: true });
    throw error;
  }
  for (const s of stages) fs.rmSync(s.logPath, { force: true });
  fs.rmSync(graph.logDir, { recursive: true, force: true });
  return written.length;
}

/**
 * Spools every ended graph not yet spooled: all of them (room closing), or only those that ended at least
 * `retentionMs` before `now` (the retention pass). A failure leaves that graph's loose logs readable and is
 * retried by the next pass. Returns the graphs spooled.
 */
export function spoolEnded(ctx: EngineContext, repo: GraphRepo, artifactRoot: string, retention?: { now: string; retentionMs: number }): string[] {
  const before = retention ? new Date(Date.parse(retention.now) - retention.retentionMs).toISOString() : undefined;
  const done: string[] = [];
  for (const g of repo.toSpool(before)) {
    try {
      spoolGraph(ctx, repo, g, artifactRoot);
      done.push(g.id);
    } catch (error) {
      // a full disk is the runner's health (one line while it lasts), not a stack per graph per pass
      if (isDiskFullError(error)) ctx.health.failed('store', error);
      else console.error(`[graphs] spooling the logs of graph ${g.id} failed (they stay readable where they are):`, error);
    }
  }
  return done;
}
