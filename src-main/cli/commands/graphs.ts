import fs from 'node:fs';
import path from 'node:path';
import type { MethodOutputs } from '../../common/contract';
import { LIMITS } from '../../common/limits';
import type { GraphView, StageView } from '../../common/methods/graphs';
import { stringFlag, UsageError, type ParsedArgs } from '../args';
import { print, type CeCommand } from '../command';
import { Engine, resolvePaths, Room } from '../../engine/index';
import { callAsOperator, readAs, roomIsServed } from '../room-client';

const MAX_GRAPH_FILE_BYTES = 2 * 1024 * 1024;

function graphLine(g: GraphView): string {
  const done = `${g.progress.done}/${g.progress.total}`;
  return `${g.graphId}  ${g.state.padEnd(9)} ${done.padStart(7)}  ${g.createdAt}  ${g.name ?? ''}`;
}

function stageLine(s: StageView): string {
  const why = [s.errorCode, s.exitCode !== null ? `exit ${s.exitCode}` : null, s.signal].filter(Boolean).join(' ');
  const attempt = s.maxAttempts > 1 ? ` attempt ${s.attempt}/${s.maxAttempts}` : '';
  return `  ${s.id.padEnd(24)} ${s.state.padEnd(9)} ${why}${attempt}${s.message ? `  — ${s.message}` : ''}`;
}

function describeStatus(out: MethodOutputs['tasks_status']): string {
  const g = out.graph;
  const head = `graph ${g.graphId}${g.name ? ` (${g.name})` : ''}: ${g.state}, ${g.progress.done}/${g.progress.total} stages done, by ${g.owner}`;
  if ('stages' in out) return [head, ...out.stages.map(stageLine)].join('\n');
  const log = out.log.records.map((r) => (r.stream === 'stderr' ? r.text.replace(/^(?=.)/gm, '! ') : r.text)).join('');
  return [head, stageLine(out.stage), `--- log (${out.log.spooled ? 'spooled' : 'live'}, ${out.log.size} bytes) ---`, log].join('\n');
}

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

const isEnded = (state: string) => state !== 'pending' && state !== 'running';

/**
 * Prints stage transitions as they happen until the graph ends; returns its final status. `read(waitMs)` asks
 * tasks_status to answer once something changes (a committed event of the graph), so nothing here polls.
 */
async function follow(read: (waitMs: number) => Promise<MethodOutputs['tasks_status']>, args: ParsedArgs): Promise<MethodOutputs['tasks_status']> {
  const seen = new Map<string, string>();
  for (let first = true; ; first = false) {
    const out = await read(first ? 0 : LIMITS.maxStatusWaitMs);
    if ('stages' in out && !args.flags.json) {
      for (const s of out.stages) {
        const key = `${s.state}${s.attempt}`;
        if (seen.get(s.id) !== key && s.state !== 'pending') console.log(stageLine(s));
        seen.set(s.id, key);
      }
    }
    if (isEnded(out.graph.state)) return out;
  }
}

/** No room process holds the room: run the graph here, in the foreground, until it ends (Ctrl-C cancels it). */
async function runInForeground(room: string | undefined, graph: unknown, args: ParsedArgs): Promise<number> {
  const engine = await Engine.start(Room.open({ markdown: room, paths: resolvePaths() }));
  const caller = engine.operator();
  let graphId: string | undefined;
  const onSigint = () => {
    if (graphId) void engine.call(caller, 'tasks_cancel', { graphId }).catch(() => undefined);
  };
  process.on('SIGINT', onSigint);
  try {
    const started = await engine.call(caller, 'tasks_run', graph);
    graphId = started.graphId;
    if (!args.flags.json) console.log(`graph ${graphId} running in the foreground (no room process serves this room; Ctrl-C cancels it)`);
    const id = graphId;
    const end = await follow((waitMs) => engine.call(caller, 'tasks_status', { graphId: id, waitMs }), args);
    print(args, end, () => `graph ${id}: ${end.graph.state}`);
    return end.graph.state === 'completed' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
    await engine.close();
  }
}

export const GRAPH_COMMANDS: CeCommand[] = [
  {
    name: 'graphs',
    usage: ['ce graphs                                                    list task graphs, newest first'],
    async run(args, room) {
      if (args.positional.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(args.positional[1])}`);
      const out = await readAs(room, 'tasks_list', { limit: 100 });
      print(args, out, () => (out.graphs.length === 0 ? 'no graphs yet: submit one with "ce run FILE.json"' : out.graphs.map(graphLine).join('\n')));
      return 0;
    },
  },
  {
    name: 'graph',
    usage: ['ce graph ID [--stage STAGE]                                  a graph and its stages; with --stage, its log tail'],
    async run(args, room) {
      const [, graphId, extra] = args.positional;
      if (!graphId) throw new UsageError('ce graph ID: ID is missing (see "ce graphs")');
      if (extra) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
      const stageId = stringFlag(args, 'stage');
      const out = await readAs(room, 'tasks_status', { graphId, ...(stageId === undefined ? {} : { stageId }) });
      print(args, out, () => describeStatus(out));
      return 0;
    },
  },
  {
    name: 'graph-cancel',
    usage: ['ce graph-cancel ID [--stage STAGE]                           cancel a graph, or one of its stages'],
    async run(args, room) {
      const [, graphId, extra] = args.positional;
      if (!graphId) throw new UsageError('ce graph-cancel ID: ID is missing (see "ce graphs")');
      if (extra) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
      const stageId = stringFlag(args, 'stage');
      const out = await callAsOperator(room, 'tasks_cancel', stageId ? { graphId, stageId } : { graphId });
      print(args, out, () => [out.message, ...out.changed.map((c) => `  ${c.id}: ${c.from} → ${c.to}`)].join('\n'));
      return 0;
    },
  },
  {
    name: 'run',
    usage: [
      'ce run FILE.json [--wait]                                    submit a task graph; with no room process running',
      '                                                             it runs here until it ends (Ctrl-C cancels it)',
    ],
    async run(args, room) {
      const [, file, extra] = args.positional;
      if (!file) throw new UsageError('ce run FILE.json: FILE.json is missing');
      if (extra) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
      const graph = readGraphFile(file);
      if (!roomIsServed(room)) return runInForeground(room, graph, args);
      const started = await callAsOperator(room, 'tasks_run', graph as never);
      if (!args.flags.wait) {
        print(args, started, () => [`graph ${started.graphId} submitted: ce graph ${started.graphId}`, ...started.stages.map((s) => `  ${s.id.padEnd(24)} ${s.state}`)].join('\n'));
        return 0;
      }
      const end = await follow((waitMs) => readAs(room, 'tasks_status', { graphId: started.graphId, waitMs }), args);
      print(args, end, () => `graph ${started.graphId}: ${end.graph.state}`);
      return end.graph.state === 'completed' ? 0 : 1;
    },
  },
];
