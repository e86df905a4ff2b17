import crypto from 'node:crypto';
import fs from 'node:fs';
import type { MethodOutputs } from '../../common/contract';
import { RoomError } from '../../common/errors';
import { isTerminalStage, type StageExit } from '../../common/graphs/stage-machine';
import type { LogRecord, StageView } from '../../common/methods/graphs';
import { decodeCursor, encodeCursor, numberAt } from '../core/paging';
import type { RemoteStageEnd, RemoteStageHandle, RemoteStagePort, RemoteStageRequest } from '../process/remote-stage';
import type { NodeLinks } from './node-links';

/**
 * Graph stages on the room's hosts (the port of process/remote-stage.ts): each is placed on its host's node
 * under a name made from its key (`stage_place`: the node runs a name once, and answers with the run it has
 * when asked again), then followed with the node's own tasks_status — its state, and its log from the offset
 * the local copy ends at, records rewritten byte for byte as the node wrote them, so the copy here is the
 * node's log and a restarted room resumes it where it ends. A dropped link is retried with a growing wait: the
 * stage is unknown meanwhile, never failed. Cancelling asks the node (its SIGINT, grace, SIGTERM, SIGKILL).
 */

/** The one stage of the node's graph that runs a remote stage. */
const NODE_STAGE = 'run';
/** The longest a follow call waits on the node for something new (its own cap is 25 s). */
const FOLLOW_WAIT_MS = 20_000;
const READ_BYTES = 64 * 1024;
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10_000;

/** What a node's `stage_log` answers (server/node-stages.ts). */
interface RawLog {
  stage?: StageView;
  spooled?: boolean;
  text?: unknown;
  next?: unknown;
  more?: unknown;
}

const STREAM_CODE: Record<LogRecord['stream'], string> = { stdout: 'o', stderr: 'e', runner: 'r' };

/** The node's name for a stage's run: the key's digest (a key holds this room's and graph's ids). */
export function nodeRunName(key: string): string {
  return `room-stage ${crypto.createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

/** A log record as the node's log file has it (stage-log.ts writes exactly this line). */
function recordLine(r: LogRecord): string {
  return `${JSON.stringify({ q: r.seq, s: STREAM_CODE[r.stream], t: r.at, d: r.text })}\n`;
}

/** How the node's ended stage reads as an attempt's end here. */
export function endOf(host: string, stage: StageView, asked: StageExit['endedBy'] | undefined): RemoteStageEnd {
  const exit = { code: stage.exitCode, signal: stage.signal };
  if (stage.state === 'completed') return asked === 'service-stop' ? { ...exit, endedBy: asked } : exit;
  if (stage.state === 'cancelled') return { ...exit, endedBy: asked ?? 'cancel' };
  switch (stage.errorCode) {
    case 'TIMEOUT':
      return { ...exit, endedBy: 'timeout' };
    case 'SPAWN_FAILED':
      return { ...exit, spawnError: `on ${host}: ${stage.message ?? 'it could not be started'}` };
    case 'RUNNER_RESTARTED':
      return { ...exit, lost: `the room node on ${host} restarted while it ran (its processes were ended there)` };
    case 'DISK_FULL':
      return { ...exit, endedBy: 'disk-full', logError: `on ${host}: ${stage.message ?? 'no space left'}` };
    case 'LOG_WRITE_FAILED':
      return { ...exit, endedBy: 'log-failed', logError: `on ${host}: ${stage.message ?? 'its log could not be written'}` };
    default:
      return exit;
  }
}

/** Opens the local copy for appending, without a torn last record (a kill -9 mid-write): returns it and its size. */
function openCopy(file: string): { fd: number; size: number } {
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600);
  let size = fs.fstatSync(fd).size;
  if (size > 0) {
    const tail = Buffer.alloc(Math.min(size, 64 * 1024));
    fs.readSync(fd, tail, 0, tail.length, size - tail.length);
    const cut = tail.lastIndexOf(0x0a);
    const whole = cut < 0 ? size - tail.length : size - tail.length + cut + 1;
    if (whole !== size) {
      fs.ftruncateSync(fd, whole);
      size = whole;
    }
  }
  return { fd, size };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
const unavailable = (e: unknown) => e instanceof RoomError && e.code === 'UNAVAILABLE';
/** The node is at its cap of running graphs: the stage waits for a slot there, as for a host that is away. */
const full = (e: unknown) => e instanceof RoomError && e.code === 'LIMIT_EXCEEDED';

/** One remote stage, followed from placement to its end. */
class Follower implements RemoteStageHandle {
  readonly done: Promise<RemoteStageEnd>;
  private finish!: (end: RemoteStageEnd) => void;
  private detached = false;
  private nodeGraph: string | null = null;
  private asked: StageExit['endedBy'] | undefined;
  private cancelSent = false;
  /** The node answers `stage_log` (one of an earlier version does not, nor one whose answer did not add up). */
  private rawLogs = true;
  private readonly as: string | undefined;

  constructor(
    private readonly links: NodeLinks,
    private readonly req: RemoteStageRequest,
  ) {
    this.as = req.ownerRole === 'operator' ? undefined : req.owner;
    this.done = new Promise((resolve) => (this.finish = resolve));
    void this.follow();
  }

  private call<T>(method: string, params: unknown): Promise<T> {
    return this.links.get(this.req.host).call<T>(method, params, this.as);
  }

  private async follow(): Promise<void> {
    let copy: { fd: number; size: number };
    try {
      copy = openCopy(this.req.logPath);
    } catch (error) {
      this.finish({ code: null, signal: null, endedBy: 'log-failed', logError: `${this.req.logPath}: ${(error as Error).message}` });
      return;
    }
    let offset = copy.size;
    let wait = RETRY_FIRST_MS;
    try {
      // the person may have removed the host, or kept it for themselves, since the graph was submitted
      this.links.allowed({ role: this.req.ownerRole ?? 'agent' }, this.req.host);
    } catch (error) {
      this.notStarted(copy, (error as Error).message);
      fs.closeSync(copy.fd);
      return;
    }
    try {
      while (!this.detached) {
        try {
          this.nodeGraph ??= (await this.call<{ graphId: string }>('stage_place', { name: nodeRunName(this.req.key), spec: this.req.spec })).graphId;
          if (this.asked !== undefined && !this.cancelSent) await this.sendCancel();
          const read = await this.read(this.nodeGraph, offset);
          wait = RETRY_FIRST_MS;
          if (this.detached || !read) continue;
          if (read.text.length > 0) {
            fs.writeSync(copy.fd, read.text);
            this.req.grew();
          }
          offset = read.next;
          if (isTerminalStage(read.stage.state) && !read.more) {
            this.finish(endOf(this.req.host, read.stage, this.asked));
            return;
          }
        } catch (error) {
          if (this.detached || this.links.closed) return;
          if (unavailable(error) || (this.nodeGraph === null && full(error))) {
            // the host is unreachable: its stage is unknown until it is back (never failed for it)
            await sleep(wait);
            wait = Math.min(wait * 2, RETRY_MAX_MS);
            continue;
          }
          const message = error instanceof Error ? error.message : String(error);
          // the node refused it (the spec there, its limits) or lost it: the stage ends saying so
          if (this.nodeGraph === null) this.notStarted(copy, message);
          else this.finish({ code: null, signal: null, lost: message });
          return;
        }
      }
    } finally {
      fs.closeSync(copy.fd);
    }
  }

  /**
   * The stage and its log's records from byte `offset` of the node's log, as lines to append to the copy here:
   * with the node's `stage_log` (the records as its file holds them, up to a MiB), else (a spooled log, a node
   * of an earlier version) with its tasks_status, each record written again as the node wrote it.
   */
  private async read(graphId: string, offset: number): Promise<{ stage: StageView; text: string; next: number; more: boolean } | null> {
    if (this.rawLogs) {
      try {
        const out = await this.call<RawLog>('stage_log', { graphId, offset, waitMs: FOLLOW_WAIT_MS });
        if (out.stage && out.spooled) return this.readRecords(graphId, offset);
        // the copy stays the node's log byte for byte: whole lines, exactly as long as the offsets they span
        if (out.stage && typeof out.text === 'string' && (out.text === '' || out.text.endsWith('\n')) && out.next === offset + Buffer.byteLength(out.text)) {
          return { stage: out.stage, text: out.text, next: out.next, more: out.more === true };
        }
        this.rawLogs = false;
      } catch (error) {
        if (!(error instanceof RoomError && error.code === 'NOT_FOUND' && error.message.startsWith('unknown method'))) throw error;
        this.rawLogs = false;
      }
    }
    return this.readRecords(graphId, offset);
  }

  private async readRecords(graphId: string, offset: number): Promise<{ stage: StageView; text: string; next: number; more: boolean } | null> {
    const scope = `${graphId}:${NODE_STAGE}`;
    const status = await this.call<MethodOutputs['tasks_status']>('tasks_status', {
      graphId,
      stageId: NODE_STAGE,
      cursor: encodeCursor('stage-log', scope, [offset]),
      maxBytes: READ_BYTES,
      waitMs: FOLLOW_WAIT_MS,
    });
    if (!('log' in status)) return null;
    const next = numberAt(decodeCursor(status.log.nextCursor, 'stage-log', scope, 'follow'), 0, 'follow');
    return { stage: status.stage, text: status.log.records.map(recordLine).join(''), next, more: status.log.more };
  }

  /**
   * It never reached the node (so the copy holds nothing of the node's log, and never will): one runner record
   * says why, and the attempt ends as one that could not start.
   */
  private notStarted(copy: { fd: number; size: number }, message: string): void {
    if (copy.size === 0) {
      try {
        fs.writeSync(copy.fd, recordLine({ seq: 1, stream: 'runner', at: this.links.now(), text: `[could not start on ${this.req.host}: ${message}]\n` }));
        this.req.grew();
      } catch {
        // the stage's end says it anyway
      }
    }
    this.finish({ code: null, signal: null, spawnError: message });
  }

  private async sendCancel(): Promise<void> {
    if (this.nodeGraph === null) return;
    await this.call('tasks_cancel', { graphId: this.nodeGraph });
    this.cancelSent = true;
  }

  async end(reason: NonNullable<StageExit['endedBy']>): Promise<boolean> {
    this.asked ??= reason;
    try {
      await this.sendCancel();
      return this.cancelSent;
    } catch {
      // unreachable (or not placed yet): the follow loop asks once it reaches the node
      return false;
    }
  }

  detach(): void {
    this.detached = true;
  }
}

export class RemoteStages implements RemoteStagePort {
  constructor(private readonly links: NodeLinks) {}

  check(caller: { name: string; role: string }, host: string): void {
    this.links.allowed(caller, host);
  }

  start(request: RemoteStageRequest): RemoteStageHandle {
    return new Follower(this.links, request);
  }

  reachable(host: string): boolean | null {
    return this.links.reachable(host);
  }
}
