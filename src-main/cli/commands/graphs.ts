import type { MethodOutputs } from '../../common/contract';
import type { GraphView, StageView } from '../../common/methods/graphs';
import { stringFlag, UsageError } from '../args';
import { print, type CeCommand } from '../command';
import { callAsOperator, readAs } from '../room-client';

function graphLine(g: GraphView): string {
  const done = `${g.progress.done}/${g.progress.total}`;
  return `${g.graphId}  ${g.state.padEnd(9)} ${done.padStart(7)}  ${g.createdAt}  ${g.name ?? ''}`;
}

export function stageLine(s: StageView): string {
  const why = [s.errorCode, s.exitCode !== null ? `exit ${s.exitCode}` : null, s.signal].filter(Boolean).join(' ');
  const attempt = s.maxAttempts > 1 ? ` attempt ${s.attempt}/${s.maxAttempts}` : '';
  const state = s.retrying ? 'waiting to retry' : s.state;
  return `  ${s.id.padEnd(24)} ${state.padEnd(9)} ${why}${attempt}${s.message ? `  — ${s.message}` : ''}`;
}

export function describeStatus(out: MethodOutputs['tasks_status']): string {
  const g = out.graph;
  const head = `graph ${g.graphId}${g.name ? ` (${g.name})` : ''}: ${g.state}, ${g.progress.done}/${g.progress.total} stages done, by ${g.owner}`;
  if ('stages' in out) return [head, ...out.stages.map(stageLine)].join('\n');
  if (!('log' in out)) return head;
  const log = out.log.records.map((r) => (r.stream === 'stderr' ? r.text.replace(/^(?=.)/gm, '! ') : r.text)).join('');
  return [head, stageLine(out.stage), `--- log (${out.log.spooled ? 'spooled' : 'live'}, ${out.log.size} bytes) ---`, log].join('\n');
}

export const GRAPH_COMMANDS: CeCommand[] = [
  {
    name: 'graphs',
    synopsis: ['ce graphs'],
    summary: 'list task graphs, newest first: id, state, stages done/total, name',
    examples: ['ce graphs', 'ce graphs --json'],
    async run(args, room) {
      if (args.positional.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(args.positional[1])}`);
      const out = await readAs(room, 'tasks_list', { limit: 100 });
      print(args, out, () => (out.graphs.length === 0 ? 'no graphs yet: submit one with "ce run FILE.json"' : out.graphs.map(graphLine).join('\n')));
      return 0;
    },
  },
  {
    name: 'graph',
    synopsis: ['ce graph ID [--stage STAGE]'],
    summary: 'a graph and its stages; with --stage, that stage and the tail of its log (follow it with "ce logs")',
    options: { stage: { type: 'string', value: 'STAGE', help: 'one stage of the graph' } },
    examples: ['ce graph 5b0c…', 'ce graph 5b0c… --stage test'],
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
    synopsis: ['ce graph-cancel ID [--stage STAGE]'],
    summary: 'cancel a graph, or one of its stages (running stages get SIGINT, SIGTERM, then SIGKILL)',
    options: { stage: { type: 'string', value: 'STAGE', help: 'one stage of the graph' } },
    examples: ['ce graph-cancel 5b0c…', 'ce graph-cancel 5b0c… --stage e2e'],
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
];
