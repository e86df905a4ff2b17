import type { RoomSummary } from '../../common/methods/summary';
import { summaryLines } from '../../common/summary-text';
import { UsageError } from '../args';
import { print, type CeCommand } from '../command';
import { readAs } from '../room-client';
import { sinceFlag } from './history';

const USAGE = 'ce summary [--since WHEN]';

/** "03:12" for a time today (`now`'s day), else "Dec 4 03:12", in the reader's time zone. */
function clock(at: string, now: Date | null): string {
  const t = new Date(at);
  const hm = `${String(t.getHours()).padStart(2, '0')}:${String(t.getMinutes()).padStart(2, '0')}`;
  return now && t.toDateString() === now.toDateString() ? hm : `${t.toLocaleString('en', { month: 'short' })} ${t.getDate()} ${hm}`;
}

/** The summary as text: each section's title and counts, then its items (what waits: oldest first). */
export function summaryText(s: RoomSummary, now: Date = new Date()): string {
  return summaryLines(s, (iso) => clock(iso, iso === s.since ? null : now)).join('\n');
}

export const SUMMARY_COMMAND: CeCommand = {
  name: 'summary',
  synopsis: [USAGE],
  summary: 'while you were away: what waits for you, what finished, failed, stalled or hit a limit, what is ready to merge, spend, schedules',
  options: {
    since: { type: 'string', value: 'WHEN', help: 'what happened since: a time ago (30m, 8h, 2d) or an ISO 8601 time; default 8h' },
  },
  details: ['The same summary as the Summary screen; only sections with something in them are printed. Through the room process when one runs, else from the room file read-only.'],
  examples: ['ce summary', 'ce summary --since 24h', "ce summary --json | jq '.sections[] | select(.id == \"waiting\")'"],
  async run(args, room) {
    if (args.positional.length > 1) throw new UsageError(`${USAGE}: unexpected argument ${JSON.stringify(args.positional[1])}`);
    const since = typeof args.flags.since === 'string' ? sinceFlag(args.flags.since) : sinceFlag('8h');
    const summary = await readAs(room, 'room_summary', { since });
    print(args, summary, () => summaryText(summary));
    return 0;
  },
};
