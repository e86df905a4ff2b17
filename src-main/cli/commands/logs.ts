import type { LogRecord, StageView } from '../../common/methods/graphs';
import { hasEnded, type GraphState } from '../../common/graphs/stage-machine';
import { LIMITS } from '../../common/limits';
import { noExtra, stringFlag, UsageError } from '../args';
import type { CeCommand } from '../command';
import { EXIT } from '../exit-codes';
import { openReaderSession, type RoomReaderSession } from '../room-client';
import { visible } from '../visible-text';
import { ceCommand } from '../ce-command';

/** `GRAPH` or `GRAPH:STAGE` (a stage's task id is `<graphId>:<stageId>`). */
function parseTarget(target: string): { graphId: string; stageId: string | undefined } {
  const colon = target.indexOf(':');
  if (colon < 0) return { graphId: target, stageId: undefined };
  const stageId = target.slice(colon + 1);
  if (stageId === '') throw new UsageError(`ce logs ${target}: the stage after ":" is missing`);
  return { graphId: target.slice(0, colon), stageId };
}

/** Cursors as `--cursor`: one (opaque, as ce logs printed it) for a stage, `stage=C,stage=C` for a whole graph. */
function parseCursors(raw: string | undefined, stageId: string | undefined): Map<string, string> {
  const cursors = new Map<string, string>();
  if (raw === undefined) return cursors;
  const bad = () => new UsageError(`--cursor ${raw}: ${stageId ? 'the cursor ce logs printed' : 'STAGE=CURSOR pairs, comma-separated (as ce logs printed them)'}`);
  if (stageId !== undefined) {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw bad();
    cursors.set(stageId, raw);
    return cursors;
  }
  for (const part of raw.split(',')) {
    const m = /^([A-Za-z0-9._-]+)=([A-Za-z0-9_-]+)$/.exec(part);
    if (!m) throw bad();
    cursors.set(m[1] as string, m[2] as string);
  }
  return cursors;
}

function render(records: LogRecord[], prefix: string, raw: boolean): string {
  let out = '';
  for (const r of records) {
    const lines = r.text.split(/(?<=\n)/);
    for (const line of lines) out += `${prefix}${r.stream === 'stderr' ? '! ' : r.stream === 'runner' ? '# ' : ''}${raw ? line : visible(line)}`;
  }
  return out;
}

/**
 * Follows one graph's stage logs. Each round reads what is there, then waits — through tasks_status's waitMs,
 * which the engine answers on a committed event of the graph or when a followed log grows — for the first
 * change among the graph and its running stages; the other waits are abandoned. No timer polls.
 */
class LogFollower {
  readonly cursors: Map<string, string>;
  private readonly prefixed: boolean;

  constructor(
    readonly session: RoomReaderSession,
    private readonly graphId: string,
    private readonly stageId: string | undefined,
    cursors: Map<string, string>,
    private readonly raw = false,
  ) {
    this.cursors = cursors;
    this.prefixed = stageId === undefined;
  }

  private async stages(waitMs: number, signal?: AbortSignal): Promise<{ graphState: GraphState; stages: StageView[] }> {
    const out = await this.session.call('tasks_status', { graphId: this.graphId, ...(waitMs ? { waitMs } : {}) }, signal);
    if (!('stages' in out)) throw new Error('tasks_status answered a stage instead of the graph');
    if (this.stageId !== undefined && !out.stages.some((s) => s.id === this.stageId)) {
      throw new UsageError(`graph ${this.graphId} has no stage "${this.stageId}": its stages are ${out.stages.map((s) => s.id).join(', ')}`);
    }
    return { graphState: out.graph.state, stages: out.stages.filter((s) => this.stageId === undefined || s.id === this.stageId) };
  }

  /** Prints everything a stage has past its cursor. */
  private async drain(stage: string): Promise<void> {
    for (;;) {
      const cursor = this.cursors.get(stage) ?? 'start';
      const out = await this.session.call('tasks_status', { graphId: this.graphId, stageId: stage, cursor, maxBytes: LIMITS.maxLogReadBytes });
      if (!('log' in out)) return;
      if (out.log.records.length > 0) process.stdout.write(render(out.log.records, this.prefixed ? `${stage} | ` : '', this.raw));
      this.cursors.set(stage, out.log.nextCursor);
      if (!out.log.more || out.log.nextCursor === cursor) return;
    }
  }

  /** Reads what is there now; answers whether the followed graph or stage has ended (and was read to its end). */
  async round(): Promise<{ ended: boolean; running: string[] }> {
    const { graphState, stages } = await this.stages(0);
    for (const s of stages) if (s.state !== 'pending') await this.drain(s.id);
    const ended = this.stageId === undefined ? hasEnded(graphState) : stages.every((s) => hasEnded(s.state));
    return { ended, running: stages.filter((s) => s.state === 'running').map((s) => s.id) };
  }

  /** Waits until something may have changed: the graph's state, or output of one of the running stages. */
  async waitForChange(running: string[]): Promise<void> {
    const abort = new AbortController();
    const waits: Promise<unknown>[] = [this.stages(LIMITS.maxStatusWaitMs, abort.signal)];
    // the front door caps connections per client: follow at most a few stages' output at once (the rest show on the next change)
    for (const stage of running.slice(0, 8)) {
      waits.push(this.session.call('tasks_status', { graphId: this.graphId, stageId: stage, cursor: this.cursors.get(stage) ?? 'start', waitMs: LIMITS.maxStatusWaitMs }, abort.signal));
    }
    try {
      await Promise.race(waits);
    } finally {
      abort.abort();
      for (const w of waits) w.catch(() => undefined);
    }
  }

  /** The command that reads on from here: the same room (--room as given), the same target, its cursors. */
  resumeHint(room?: string): string {
    const target = this.stageId === undefined ? this.graphId : `${this.graphId}:${this.stageId}`;
    const cursor = this.stageId === undefined ? [...this.cursors].map(([s, c]) => `${s}=${c}`).join(',') : (this.cursors.get(this.stageId) ?? '');
    const roomFlag = room === undefined ? '' : ` --room ${shellQuote(room)}`;
    return `${ceCommand()} logs ${target}${roomFlag} --follow${cursor ? ` --cursor ${cursor}` : ''}`;
  }
}

export const LOGS_COMMAND: CeCommand = {
  name: 'logs',
  synopsis: ['ce logs GRAPH[:STAGE] [--follow] [--cursor C]'],
  summary: "a graph's stage logs (every stage, each line prefixed with its stage) or one stage's; --follow until it ends",
  options: {
    follow: { type: 'boolean', short: 'f', help: 'keep printing new output until the stage (or the whole graph) has ended' },
    cursor: { type: 'string', value: 'C', help: 'start after what you already have: the cursor printed when ce logs stopped (STAGE=N,… for a graph)' },
    raw: { type: 'boolean', help: "print the output as the stage wrote it, escape sequences included (colours; only for output you trust)" },
  },
  details: [
    'stderr lines are marked "! ", the runner\'s own notes (start, exit, retries) "# ".',
    'Control characters and escape sequences in the output are shown escaped (\\x1b…), never obeyed; --raw prints them as written.',
    'Following waits on the room\'s change feed (a committed state change, or a log that grew), never on a timer.',
    'Interrupted (Ctrl-C) or ended, it prints on stderr the command that resumes exactly where it stopped.',
    'Exit code: 0 once everything was printed (with --follow: once it ended), 1 if the graph is unknown.',
  ],
  examples: ['ce logs gr_5b0c…:test', 'ce logs gr_5b0c… --follow', 'ce logs gr_5b0c…:build -f --cursor WyJsb2c…'],
  async run(args, room) {
    const [, target] = args.positional;
    if (!target) throw new UsageError('ce logs GRAPH[:STAGE]: say which graph (see "ce graphs")');
    noExtra(args, 2);
    const { graphId, stageId } = parseTarget(target);
    const follower = new LogFollower(await openReaderSession(room), graphId, stageId, parseCursors(stringFlag(args, 'cursor'), stageId), args.flags.raw === true);
    const session = follower.session;
    const roomFlag = stringFlag(args, 'room');
    let interrupted = false;
    const onSigint = () => {
      interrupted = true;
      process.stderr.write(`\ninterrupted; resume with: ${follower.resumeHint(roomFlag)}\n`);
      process.exit(EXIT.interrupted);
    };
    process.on('SIGINT', onSigint);
    try {
      for (;;) {
        const { ended, running } = await follower.round();
        if (ended || !args.flags.follow) break;
        await follower.waitForChange(running);
      }
      if (args.flags.follow && !interrupted) process.stderr.write(`ended; read on later with: ${follower.resumeHint(roomFlag)}\n`);
      return 0;
    } finally {
      process.off('SIGINT', onSigint);
      await session.close();
    }
  },
};

/** A word the shell reads back as itself. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
