import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../../core/fs-safe';
import type { StageRecord } from '../../store/graphs';
import { StageLogWriter } from './stage-log';

/** One stage of one graph, as the runner's maps key it. */
export const stageKey = (graphId: string, stageId: string) => `${graphId}\u0000${stageId}`;

/** How many stage-log folders are remembered as checked (one per running graph; the oldest is checked again). */
const CHECKED_DIRS = 64;
/** At most this many logs are held open ahead of their stage's start (see `prepare`). */
const MAX_PREPARED_LOGS = 64;

export interface StageLogsOptions {
  capBytes: number;
  now: () => string;
  /** Told whenever a stage's log grows (live readers wait on it instead of polling the file). */
  grew?: ((graphId: string, stageId: string) => void) | undefined;
}

/**
 * The logs of the stages a runner runs: each made when its stage first starts (or ahead of it, `prepare`), kept
 * open across the stage's attempts, and closed when the stage ends.
 */
export class StageLogs {
  private readonly open = new Map<string, StageLogWriter>();
  /** Logs created ahead of their stage's start: their descriptors, by stage. */
  private readonly prepared = new Map<string, number>();
  /** Log folders already made private and checked (the next stage of the same graph skips the folder's checks). */
  private readonly checkedDirs = new Set<string>();

  constructor(private readonly options: StageLogsOptions) {}

  /**
   * A starting stage's log: the one its earlier attempts wrote, the one made ahead for it, or a new one.
   * `onFailure` is told when a write to a new log fails (a full disk).
   */
  forStage(s: StageRecord, onFailure: (error: NodeJS.ErrnoException) => void): StageLogWriter {
    const k = stageKey(s.graphId, s.stageId);
    let log = this.open.get(k);
    if (log) return log;
    const grew = this.options.grew;
    const fd = this.takePrepared(k);
    const create = () =>
      StageLogWriter.create(
        s.logPath,
        this.options.capBytes,
        this.options.now,
        grew ? () => grew(s.graphId, s.stageId) : undefined,
        onFailure,
        fd, // a log made ahead, or undefined: made now
      );
    log = fd !== undefined ? create() : this.createIn(s.logPath, create);
    this.open.set(k, log);
    return log;
  }

  /** The note the runner writes into a stage's log (an attempt's end, a retry). */
  note(graphId: string, stageId: string, text: string): void {
    this.open.get(stageKey(graphId, stageId))?.write('runner', text);
  }

  /** A stage ended: its log is closed (or the one made ahead for it, when it ended without starting). */
  close(graphId: string, stageId: string): void {
    const k = stageKey(graphId, stageId);
    this.open.get(k)?.close();
    this.open.delete(k);
    const fd = this.prepared.get(k);
    if (fd === undefined) return;
    this.prepared.delete(k);
    fs.closeSync(fd);
  }

  /**
   * Creates the logs of stages that may start soon (the scheduler's hint), while the room waits on the stages
   * that run: a stage then starts without the file's creation in its way, which costs up to a millisecond where
   * the filesystem searches long for a free inode (ext4 without a journal skips recently deleted ones). Only
   * for graphs whose log folder is checked (one of their stages started); anything that fails here is left to
   * the stage's start, which tries again and reports it. A log made for a stage that then never runs stays
   * empty, and is removed with the graph's folder when its logs are spooled.
   */
  prepare(stages: readonly StageRecord[]): void {
    for (const s of stages) {
      const k = stageKey(s.graphId, s.stageId);
      if (this.prepared.size >= MAX_PREPARED_LOGS) return;
      if (s.state !== 'pending' || this.open.has(k) || this.prepared.has(k) || !this.checkedDirs.has(path.dirname(s.logPath))) continue;
      try {
        this.prepared.set(k, StageLogWriter.createFile(s.logPath));
      } catch {
        // the start tries again, and says what is wrong
      }
    }
  }

  /** A graph ended: the logs made ahead for stages of it that never started are closed (they stay, empty). */
  dropPrepared(graphId: string): void {
    for (const [k, fd] of this.prepared) {
      if (!k.startsWith(stageKey(graphId, ''))) continue;
      this.prepared.delete(k);
      fs.closeSync(fd);
    }
  }

  /** Closes every log, and those made ahead (the room is closing). */
  closeAll(): void {
    for (const log of this.open.values()) log.close();
    this.open.clear();
    for (const fd of this.prepared.values()) fs.closeSync(fd);
    this.prepared.clear();
  }

  /** The log made ahead for a stage, if it is still where it was made (a folder removed by hand takes it along). */
  private takePrepared(k: string): number | undefined {
    const fd = this.prepared.get(k);
    if (fd === undefined) return undefined;
    this.prepared.delete(k);
    if (fs.fstatSync(fd).nlink > 0) return fd;
    fs.closeSync(fd);
    return undefined;
  }

  /**
   * A stage's log, created in its folder: the folder is made private and checked for the first stage of a graph
   * only; should it have gone since (removed by hand), it is made again and the log created once more.
   */
  private createIn(logPath: string, create: () => StageLogWriter): StageLogWriter {
    const dir = path.dirname(logPath);
    if (!this.checkedDirs.has(dir)) {
      ensurePrivateDir(dir);
      if (this.checkedDirs.size >= CHECKED_DIRS) this.checkedDirs.delete(this.checkedDirs.values().next().value as string);
      this.checkedDirs.add(dir);
      return create();
    }
    try {
      return create();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.checkedDirs.delete(dir);
      return this.createIn(logPath, create);
    }
  }
}
