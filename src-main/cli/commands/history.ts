import type { HandoffView } from '../../common/handoff-dto';
import { endingOf } from '../../common/handoff-ending';
import { ENDED_STATUSES, isIsoTime } from '../../common/methods/handoff-history';
import { stringFlag, UsageError } from '../args';
import { oneLine, print, type CeCommand } from '../command';
import { readAs } from '../room-client';
import { everyHandoff } from './handoffs';

const USAGE = `ce history [--status ${ENDED_STATUSES.join('|')}] [--participant NAME] [--since WHEN] [--text TEXT]`;
const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: a time ago ("90m", "1h", "7d") or an ISO 8601 time, as the room compares it. */
export function sinceFlag(value: string, now: number = Date.now()): string {
  const ago = /^(\d{1,6})([mhd])$/.exec(value);
  if (ago) return new Date(now - Number(ago[1]) * (UNITS[ago[2] ?? 'm'] ?? 0)).toISOString();
  if (isIsoTime(value)) return value;
  throw new UsageError(`${USAGE}: --since takes a time ago (30m, 2h, 7d) or an ISO 8601 time (2026-01-31T09:00:00Z), not ${JSON.stringify(value)}`);
}

/** One ended handoff: its id, how it ended, when, by whom and its summary; its reason or note below. */
function endedLine(h: HandoffView): string {
  const end = endingOf(h);
  const head = `${h.id.padEnd(20)} ${end.verb.padEnd(9)} ${end.at.slice(0, 19).replace('T', ' ')}  by ${oneLine(end.by, 24).padEnd(24)} ${oneLine(h.summary, 60)}`;
  return end.why ? `${head}\n${' '.repeat(21)}“${oneLine(end.why, 100)}”` : head;
}

export const HISTORY_COMMAND: CeCommand = {
  name: 'history',
  synopsis: [USAGE],
  summary: 'the ended handoffs, the most recently ended first: how each ended, who decided, and the reason or note',
  options: {
    status: { type: 'string', value: 'STATUS', help: 'only those that ended so: approved, rejected or cancelled (expired ones count as cancelled)' },
    participant: { type: 'string', value: 'NAME', help: 'only those NAME owned, was addressed, did, decided or cancelled' },
    since: { type: 'string', value: 'WHEN', help: 'only those that ended since: a time ago (30m, 2h, 7d) or an ISO 8601 time' },
    text: { type: 'string', value: 'TEXT', help: 'only those whose summary contains TEXT (any case)' },
  },
  details: ['The same list as the History screen. Through the room process when one runs, else from the room file read-only. "ce handoff ID" shows one in full.'],
  examples: ['ce history', 'ce history --status rejected --since 24h', 'ce history --participant claude --json'],
  async run(args, room) {
    if (args.positional.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(args.positional[1])}`);
    const status = stringFlag(args, 'status');
    const ended = ENDED_STATUSES.find((s) => s === status);
    if (status !== undefined && !ended) throw new UsageError(`${USAGE}: --status is approved, rejected or cancelled, not ${JSON.stringify(status)}`);
    const participant = stringFlag(args, 'participant');
    const since = stringFlag(args, 'since');
    const text = stringFlag(args, 'text');
    const filter = {
      ...(ended ? { status: ended } : {}),
      ...(participant ? { participant } : {}),
      ...(since ? { since: sinceFlag(since) } : {}),
      ...(text ? { text } : {}),
    };
    const handoffs = await everyHandoff((cursor) => readAs(room, 'handoff_history', { ...filter, limit: 200, ...(cursor ? { cursor } : {}) }));
    print(args, { handoffs }, () => (handoffs.length === 0 ? 'no ended handoffs match' : handoffs.map(endedLine).join('\n')));
    return 0;
  },
};
