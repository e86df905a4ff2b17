import fs from 'node:fs';
import path from 'node:path';
import type { MethodInput, MethodOutputs } from '../../common/contract';
import { hasEnded } from '../../common/graphs/stage-machine';
import { LIMITS } from '../../common/limits';
import { noExtra, UsageError, type ParsedArgs } from '../args';
import { print, type CeCommand } from '../command';
import { Engine, resolvePaths, Room } from '../../engine/index';
import { callAsOperator, readAs, roomIsServed } from '../room-client';
import { stageLine } from './graphs';
import { visible } from '../visible-text';

const MAX_GRAPH_FILE_BYTES = 2 * 1024 * 1024;
/** How much of a failed stage's log `ce run --wait` shows (its tail: where the error usually is). */
const FAILED_TAIL_BYTES = 8 * 1024;

type Status = MethodOutputs['tasks_status'];
type ReadStatus = (input: MethodInput<'tasks_status'>) => Promise<Status>;

function readGraphFile(file: string): unknown {
  const full = path.resolve(file);
  let st: fs.Stats;
  try {
    st = fs.statSync(full);
  } catch {
    throw new UsageError(`ce run ${file}: no such file`);
  }
  if (!st.isFile() || st.size > MAX_GRAPH_FILE_BYTES) throw new UsageError(`ce run ${file}: expected a JSON file of at most ${MAX_GRAPH_FILE_BYTES} bytes`);
  try {
    return JSON.parse(fs.readFileSync(full, 'utf8'));
  } catch (error) {
    throw new UsageError(`ce run ${file}: not valid JSON (${(error as Error).message})`);
  }
}

/**
 * Prints stage transitions as they happen until the graph ends; returns its final status. tasks_status with
 * waitMs answers once something changes (a committed event of the graph), so nothing here polls.
 */
export async function followGraph(read: ReadStatus, graphId: string, quiet: boolean): Promise<Status> {
  const seen = new Map<string, string>();
  for (let first = true; ; first = false) {
    const out = await read({ graphId, waitMs: first ? 0 : LIMITS.maxStatusWaitMs });
    if ('stages' in out && !quiet) {
      for (const s of out.stages) {
        const key = `${s.state}${s.attempt}`;
        if (seen.get(s.id) !== key && s.state !== 'pending') process.stdout.write(`${visible(stageLine(s))}\n`);
        seen.set(s.id, key);
      }
    }
    if (hasEnded(out.graph.state)) return out;
  }
}

export interface FailedStageOutput {
  stage: string;
  errorCode: string | null;
  exitCode: number | null;
  /** The tail of its log (stdout, stderr and the runner's notes, in order). */
  output: string;
  truncated: boolean;
}

/** The log tail of every stage that failed by itself (not the ones skipped because an upstream failed). */
export async function failedStageOutput(read: ReadStatus, end: Status): Promise<FailedStageOutput[]> {
  if (!('stages' in end)) return [];
  const failed = end.stages.filter((s) => s.state === 'failed' && s.errorCode !== 'UPSTREAM_FAILED');
  const out: FailedStageOutput[] = [];
  for (const s of failed) {
    const status = await read({ graphId: end.graph.graphId, stageId: s.id, maxBytes: FAILED_TAIL_BYTES });
    if (!('log' in status)) continue;
    const text = status.log.records.map((r) => (r.stream === 'stdout' ? r.text : r.text.replace(/^(?=.)/gm, r.stream === 'stderr' ? '! ' : '# '))).join('');
    out.push({ stage: s.id, errorCode: s.errorCode, exitCode: s.exitCode, output: text, truncated: status.log.size > FAILED_TAIL_BYTES });
  }
  return out;
}

function failureText(f: FailedStageOutput): string {
  const why = [f.errorCode, f.exitCode !== null ? `exit ${f.exitCode}` : null].filter(Boolean).join(', ');
  const head = `--- stage ${f.stage} failed (${why}): ${f.truncated ? 'the end of ' : ''}its output ---`;
  const body = f.output.length === 0 ? '(no output)' : f.output.replace(/\n?$/, '');
  return `${head}\n${body}\n--- (stderr lines start with "! ", the runner's notes with "# ") ---`;
}

/** Waits for the end, then prints the end state and, when the graph failed, what the failing stages printed. */
async function waitAndReport(read: ReadStatus, graphId: string, args: ParsedArgs): Promise<number> {
  const end = await followGraph(read, graphId, Boolean(args.flags.json));
  const failures = end.graph.state === 'completed' ? [] : await failedStageOutput(read, end);
  print(args, { ...end, failures }, () => [...failures.map(failureText), `graph ${graphId}: ${end.graph.state}`].join('\n'));
  return end.graph.state === 'completed' ? 0 : 1;
}

/** No room process holds the room: run the graph here, in the foreground, until it ends (Ctrl-C cancels it). */
async function runInForeground(room: string | undefined, graph: unknown, args: ParsedArgs): Promise<number> {
  const engine = await Engine.start(Room.open({ markdown: room, paths: resolvePaths(), mustExist: true }));
  const caller = engine.operator();
  let graphId: string | undefined;
  const onSigint = () => {
    if (graphId) void engine.call(caller, 'tasks_cancel', { graphId }).catch(() => undefined);
  };
  process.on('SIGINT', onSigint);
  try {
    const started = await engine.call(caller, 'tasks_run', graph);
    graphId = started.graphId;
    if (!args.flags.json) process.stdout.write(`graph ${graphId} running in the foreground (no room process serves this room; Ctrl-C cancels it)\n`);
    return await waitAndReport((input) => engine.call(caller, 'tasks_status', input), graphId, args);
  } finally {
    process.off('SIGINT', onSigint);
    await engine.close();
  }
}

export const RUN_COMMAND: CeCommand = {
  name: 'run',
  synopsis: ['ce run FILE.json [--wait]'],
  summary: 'submit a task graph; with no room process running, run it here until it ends',
  options: { wait: { type: 'boolean', help: 'follow it to the end; exit 0 only if it completed, else show what the failing stages printed' } },
  details: [
    'With a room process running, the graph is submitted there and ce returns at once (--wait follows it).',
    'With none, a graph can only run while something holds the room, so ce holds it: the graph runs in the',
    'foreground, each stage is printed as it changes, Ctrl-C cancels it, and a failed graph shows the tail of',
    'each failing stage\'s output. The room must exist ("commonroom serve" or "ce init" creates it).',
    'Exit code: 0 when the graph completed, 1 when it failed or was cancelled, 2 for a bad command line.',
  ],
  examples: ['ce run ci.json --wait', 'ce run ci.json && ce logs GRAPH_ID --follow'],
  async run(args, room) {
    const [, file] = args.positional;
    if (!file) throw new UsageError('ce run FILE.json: FILE.json is missing');
    noExtra(args, 2);
    const graph = readGraphFile(file);
    if (!roomIsServed(room)) return runInForeground(room, graph, args);
    const started = await callAsOperator(room, 'tasks_run', graph as never);
    if (!args.flags.wait) {
      print(args, started, () => [`graph ${started.graphId} submitted: ce graph ${started.graphId}`, ...started.stages.map((s) => `  ${s.id.padEnd(24)} ${s.state}`)].join('\n'));
      return 0;
    }
    return waitAndReport((input) => readAs(room, 'tasks_status', input), started.graphId, args);
  },
};
