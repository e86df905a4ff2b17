import fs from 'node:fs';
import path from 'node:path';
import type { MethodInput } from '../../common/contract';
import { dueInZone, type ScheduleRunView, type ScheduleView } from '../../common/methods/schedules';
import { stringFlag, UsageError, type ParsedArgs } from '../args';
import { oneLine, print, type CeCommand } from '../command';
import { callAsOperator, readAs } from '../room-client';

const MAX_GRAPH_FILE_BYTES = 2 * 1024 * 1024;

function readGraphFile(file: string): MethodInput<'tasks_run'> {
  const full = path.resolve(file);
  let text: string;
  try {
    if (fs.statSync(full).size > MAX_GRAPH_FILE_BYTES) throw new UsageError(`--graph ${file}: expected a JSON file of at most ${MAX_GRAPH_FILE_BYTES} bytes`);
    text = fs.readFileSync(full, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--graph ${file}: no such file (give the graph as a JSON file, as "ce run" takes it)`);
  }
  try {
    return JSON.parse(text) as MethodInput<'tasks_run'>;
  } catch (error) {
    throw new UsageError(`--graph ${file}: not valid JSON (${(error as Error).message})`);
  }
}

/** A run as one line: its due time in the schedule's zone, what became of it, and what it started or why not. */
export function runLine(r: ScheduleRunView, timeZone: string): string {
  const what = r.graphId ? `graph ${r.graphId}` : r.handoffId ? `agent task ${r.handoffId}${r.shellId ? ` (shell ${r.shellId})` : ''}` : '';
  const outcome = `${r.outcome}${r.late ? ' late' : ''}`;
  return `${dueInZone(r.dueAt, timeZone).padEnd(40)} ${outcome.padEnd(9)} ${r.reason ?? what}`;
}

function scheduleLines(s: ScheduleView): string[] {
  const next = s.nextDueAt ? dueInZone(s.nextDueAt, s.timeZone) : s.removedAt ? `removed ${s.removedAt}` : 'never again';
  const last = s.lastRun ? `${s.lastRun.outcome}${s.lastRun.late ? ' late' : ''} for ${dueInZone(s.lastRun.dueAt, s.timeZone)}` : 'no run yet';
  return [
    `${s.id}  ${oneLine(s.name, 60)}  (${s.owner})`,
    `  ${s.cron}  in ${s.timeZone}; missed while the room is down: ${s.catchUp === 'once' ? 'run once on start' : 'skip, and say so'}`,
    `  runs: ${oneLine(s.runs, 100)}`,
    `  next: ${next}    last: ${last}`,
  ];
}

function addInput(args: ParsedArgs, name: string): MethodInput<'schedule_add'> {
  const cron = stringFlag(args, 'cron');
  if (!cron) throw new UsageError('ce schedule add NAME --cron "MIN HOUR DAY MONTH WEEKDAY": give --cron, e.g. --cron "0 3 * * *" (03:00 every day)');
  const graphFile = stringFlag(args, 'graph');
  const client = stringFlag(args, 'agent');
  if ((graphFile === undefined) === (client === undefined)) throw new UsageError('ce schedule add: give what it runs, --graph FILE.json or --agent CLIENT --task TEXT (one of them)');
  const catchUp = stringFlag(args, 'catch-up');
  if (catchUp !== undefined && catchUp !== 'once' && catchUp !== 'skip') throw new UsageError(`--catch-up ${catchUp}: use "once" (run a missed due time once when the room starts) or "skip"`);
  const timeZone = stringFlag(args, 'tz');
  const common = { name, cron, ...(timeZone ? { timeZone } : {}), ...(catchUp ? { catchUp: catchUp as 'once' | 'skip' } : {}) };
  if (graphFile !== undefined) return { ...common, graph: readGraphFile(graphFile) };
  const task = stringFlag(args, 'task');
  if (!task) throw new UsageError('ce schedule add --agent CLIENT: give --task TEXT, what the agent is asked to do on each run');
  const cwd = stringFlag(args, 'cwd');
  const repo = stringFlag(args, 'repo');
  const agent = {
    client: client as NonNullable<MethodInput<'schedule_add'>['agent']>['client'],
    task,
    ...(cwd ? { cwd: path.resolve(cwd) } : {}),
    ...(repo ? { repo: path.resolve(repo) } : {}),
    ...(args.positional.length > 3 ? { command: args.positional.slice(3) } : {}),
  };
  return { ...common, agent };
}

export const SCHEDULE_COMMANDS: CeCommand[] = [
  {
    name: 'schedule',
    synopsis: [
      'ce schedule list',
      'ce schedule add NAME --cron "0 3 * * *" [--tz ZONE] [--catch-up once|skip] --graph FILE.json',
      'ce schedule add NAME --cron "0 3 * * *" [--tz ZONE] [--catch-up once|skip] --agent CLIENT --task TEXT [--cwd DIR] [--repo DIR] [-- COMMAND…]',
      'ce schedule runs ID',
      'ce schedule remove ID',
    ],
    summary: 'run a graph or an agent task on a cron schedule, and see what became of each due time',
    options: {
      cron: { type: 'string', value: 'PATTERN', help: 'add: five fields, minute hour day-of-month month day-of-week ("0 3 * * *": 03:00 every day)' },
      tz: { type: 'string', value: 'ZONE', help: "add: the IANA time zone the pattern is read in (Europe/Paris, UTC); default this machine's" },
      'catch-up': { type: 'string', value: 'once|skip', help: 'add: a due time missed while the room was down: run it once when the room starts (default), or skip it' },
      graph: { type: 'string', value: 'FILE.json', help: 'add: the graph to run, as "ce run" takes it' },
      agent: { type: 'string', value: 'CLIENT', help: 'add: start this agent CLIENT (claude-code, codex, gemini-cli, opencode, command) with --task' },
      task: { type: 'string', value: 'TEXT', help: 'add --agent: what the agent is asked to do on each run (a handoff to it)' },
      cwd: { type: 'string', value: 'DIR', help: 'add --agent: the folder it works in' },
      repo: { type: 'string', value: 'DIR', help: 'add --agent: the git repository each run gets a worktree of its own in' },
    },
    details: [
      'A schedule runs as you, in the room process: nothing runs while no room process serves the room. Every',
      'due time is recorded: ran (with the graph or agent task it started), skipped (its previous run was still',
      'going), missed (the room was not running then), or failed (the start was refused, and why). A due time',
      'is decided once: after a crash or a kill, it is never run a second time.',
      'runs lists each due time, newest first, in the schedule\'s time zone. remove stops new runs; a run already',
      'started goes on, and the records stay.',
    ],
    examples: [
      'ce schedule add "nightly build" --cron "0 3 * * *" --tz Europe/Paris --graph build.json',
      'ce schedule add triage --cron "30 8 * * 1-5" --agent claude-code --task "triage new issues" --cwd ~/src/app',
      'ce schedule list',
      'ce schedule runs sc_…',
    ],
    async run(args, room) {
      const [, sub, arg] = args.positional;
      switch (sub) {
        case 'list':
        case undefined: {
          const out = await readAs(room, 'schedule_list', {});
          print(args, out, () =>
            out.schedules.length > 0
              ? out.schedules.flatMap((s) => [...scheduleLines(s), '']).join('\n').trimEnd()
              : `no schedules yet: add one with "ce schedule add NAME --cron PATTERN --graph FILE.json" (times are read in ${out.machineTimeZone} unless --tz says otherwise)`);
          return 0;
        }
        case 'add': {
          if (!arg) throw new UsageError('ce schedule add NAME: give the schedule a name');
          if (args.positional.length > 3 && !args.flags.agent) throw new UsageError(`unexpected argument ${JSON.stringify(args.positional[3])}`);
          const out = await callAsOperator(room, 'schedule_add', addInput(args, arg));
          print(args, out, () => [`added ${out.schedule.id}:`, ...scheduleLines(out.schedule).slice(1)].join('\n'));
          return 0;
        }
        case 'runs': {
          if (!arg) throw new UsageError('ce schedule runs ID: name a schedule (see "ce schedule list")');
          const out = await readAs(room, 'schedule_runs', { scheduleId: arg });
          print(args, out, () =>
            [...scheduleLines(out.schedule), '', ...(out.runs.length > 0 ? out.runs.map((r) => runLine(r, out.schedule.timeZone)) : ['no due time yet'])].join('\n'));
          return 0;
        }
        case 'remove': {
          if (!arg) throw new UsageError('ce schedule remove ID: name a schedule (see "ce schedule list")');
          const out = await callAsOperator(room, 'schedule_remove', { scheduleId: arg });
          print(args, out, () => (out.removed ? `removed ${arg} (${out.schedule.name}): nothing more starts on it; "ce schedule runs ${arg}" still shows its runs` : `${arg} was already removed`));
          return 0;
        }
        default:
          throw new UsageError(`ce schedule ${sub}: use list, add, runs or remove`);
      }
    },
  },
];
