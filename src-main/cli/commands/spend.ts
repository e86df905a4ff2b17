import { dollars, type EnvelopeView, type SpendRow } from '../../common/methods/spend';
import { stringFlag, UsageError, type ParsedArgs } from '../args';
import { print, type CeCommand } from '../command';
import { callAsOperator, readAs } from '../room-client';

const tokens = (n: number) => n.toLocaleString('en');

function rowLine(r: SpendRow): string {
  const on = r.handoffId ? ` on ${r.handoffId}` : '';
  return `${r.day}  ${r.participant.padEnd(18)} ${dollars(r.costMicroUsd).padStart(9)}  ${tokens(r.inputTokens).padStart(11)} in ${tokens(r.outputTokens).padStart(9)} out  ${r.run || '(not started by the room)'}${on}`;
}

function limitsOf(e: EnvelopeView): string {
  return [
    e.maxCostMicroUsd !== null ? `cost ${dollars(e.maxCostMicroUsd)}` : null,
    e.maxTokens !== null ? `${tokens(e.maxTokens)} tokens` : null,
    e.maxWallMs !== null ? `wall ${Math.round(e.maxWallMs / 1000)} s` : null,
    e.maxIdleMs !== null ? `idle ${Math.round(e.maxIdleMs / 1000)} s` : null,
  ]
    .filter(Boolean)
    .join(', ');
}

export function envelopeLine(e: EnvelopeView): string {
  const state = e.stopped ? `stopped at ${e.stopped.limit}: ${e.stopped.text}` : e.state;
  return `${e.scope.padEnd(8)} ${e.target.padEnd(26)} ${limitsOf(e).padEnd(30)} ${state}`;
}

/** A positive number of an option, or undefined when it is not given. */
function numberFlag(args: ParsedArgs, name: string, scale = 1): number | undefined {
  const raw = stringFlag(args, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} takes a positive number, not ${JSON.stringify(raw)}`);
  return Math.round(n * scale * 1e6) / 1e6;
}

/** The limit options of an envelope (ce envelope set, ce agent start). */
export const ENVELOPE_LIMIT_OPTIONS = {
  'max-cost': { type: 'string', help: 'US dollars the clients report' },
  'max-tokens': { type: 'string', help: 'input plus output tokens' },
  'max-wall': { type: 'string', help: 'seconds of wall-clock time from its start' },
  'max-idle': { type: 'string', help: "seconds an agent's client may sit idle at its prompt" },
} as const;

/** The envelope limits given as --max-cost, --max-tokens, --max-wall and --max-idle (the method's units). */
export function envelopeLimitFlags(args: ParsedArgs): { maxCostUsd?: number; maxTokens?: number; maxWallMs?: number; maxIdleMs?: number } {
  const limits = {
    maxCostUsd: numberFlag(args, 'max-cost'),
    maxTokens: numberFlag(args, 'max-tokens'),
    maxWallMs: numberFlag(args, 'max-wall', 1000),
    maxIdleMs: numberFlag(args, 'max-idle', 1000),
  };
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined).map(([k, v]) => [k, k === 'maxCostUsd' ? v : Math.round(v as number)]));
}

/** The envelope's target from --agent TERMINAL, --handoff ID or --graph ID (exactly one). */
function targetOf(args: ParsedArgs): { scope: 'agent' | 'handoff' | 'graph'; target: string } {
  const given = (['agent', 'handoff', 'graph'] as const).flatMap((scope) => {
    const target = stringFlag(args, scope);
    return target ? [{ scope, target }] : [];
  });
  if (given.length !== 1) throw new UsageError('name what the envelope bounds: one of --agent TERMINAL_ID (see "ce agent list"), --handoff ID or --graph ID');
  return given[0] as { scope: 'agent' | 'handoff' | 'graph'; target: string };
}

export const SPEND_COMMANDS: CeCommand[] = [
  {
    name: 'spend',
    synopsis: ['ce spend [--days N] [--participant NAME] [--handoff ID]'],
    summary: 'what agents spent: tokens and cost per day, agent run and handoff, as their clients report them',
    options: {
      days: { type: 'string', help: 'how many days back, today included (default 7)' },
      participant: { type: 'string', help: 'only this participant' },
      handoff: { type: 'string', help: 'only the work on this handoff' },
    },
    details: [
      'The agent clients the room starts (Claude Code, Codex, Gemini CLI) report their token usage, and Claude Code',
      'its cost, over OpenTelemetry to the room; the room adds it up per UTC day, participant, agent run (its',
      'terminal) and handoff. Costs are the clients\' own estimates at list price, not a bill. The envelopes follow,',
      'with what each stopped at. See docs/spend.md.',
    ],
    examples: ['ce spend', 'ce spend --days 1', 'ce spend --handoff hf_abc --json'],
    async run(args, room) {
      if (args.positional.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(args.positional[1])}`);
      const days = stringFlag(args, 'days');
      const participant = stringFlag(args, 'participant');
      const handoff = stringFlag(args, 'handoff');
      if (days !== undefined && !/^\d+$/.test(days)) throw new UsageError(`--days takes a whole number of days, not ${JSON.stringify(days)}`);
      const out = await readAs(room, 'spend_report', { ...(days ? { days: Number(days) } : {}), ...(participant ? { participant } : {}), ...(handoff ? { handoffId: handoff } : {}) });
      print(args, out, () => {
        if (out.rows.length === 0 && out.envelopes.length === 0) return 'nothing spent yet: the agents the room starts report their usage here as they work';
        const lines = out.totals.map((t) => `${t.participant.padEnd(18)} ${dollars(t.costMicroUsd).padStart(9)}  ${tokens(t.inputTokens)} in, ${tokens(t.outputTokens)} out, ${tokens(t.cacheReadTokens)} cache read`);
        if (out.rows.length > 0) lines.push('', 'per day and run:', ...out.rows.map(rowLine));
        if (out.envelopes.length > 0) lines.push('', 'envelopes:', ...out.envelopes.map(envelopeLine));
        return lines.join('\n');
      });
      return 0;
    },
  },
  {
    name: 'envelope',
    synopsis: ['ce envelope set (--agent TERMINAL | --handoff ID | --graph ID) [--max-cost USD] [--max-tokens N] [--max-wall S] [--max-idle S]', 'ce envelope clear (--agent TERMINAL | --handoff ID | --graph ID)'],
    summary: 'a ceiling on an agent run, the agents on a handoff, or a graph: stopped at a safe point when reached',
    options: {
      agent: { type: 'string', help: "an agent run, by its terminal's id (ce agent list)" },
      handoff: { type: 'string', help: 'every agent run on this handoff' },
      graph: { type: 'string', help: 'a graph run' },
      ...ENVELOPE_LIMIT_OPTIONS,
    },
    details: [
      'At a limit the room stops the work at a safe point: each agent is interrupted with its client\'s key (Esc),',
      'given a few seconds to reach its prompt, then stopped (its participant stays: "Start again" resumes the',
      'conversation); a graph is cancelled (tasks_cancel). The inbox then holds "stopped by its envelope: cost — …"',
      'for you, and Activity an envelope.stopped event. A graph\'s envelope bounds wall-clock time only.',
    ],
    examples: ['ce envelope set --agent sh_abc --max-cost 2.50', 'ce envelope set --graph gr_abc --max-wall 3600', 'ce envelope clear --agent sh_abc'],
    async run(args, room) {
      const [, sub, extra] = args.positional;
      if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
      const { scope, target } = targetOf(args);
      if (sub === 'set') {
        const out = await callAsOperator(room, 'envelope_set', { scope, target, ...envelopeLimitFlags(args) });
        print(args, out, () => `envelope set: ${envelopeLine(out.envelope)}`);
        return 0;
      }
      if (sub === 'clear') {
        const out = await callAsOperator(room, 'envelope_clear', { scope, target });
        print(args, out, () => (out.removed ? `envelope taken off ${scope} ${target}` : `${scope} ${target} had no envelope`));
        return 0;
      }
      throw new UsageError(`ce envelope ${sub ?? ''}: use set or clear`);
    },
  },
];
