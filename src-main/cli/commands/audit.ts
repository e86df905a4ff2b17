import { UsageError } from '../args';
import { print, type CeCommand } from '../command';
import { callAsOperator } from '../room-client';

export const AUDIT_COMMANDS: CeCommand[] = [
  {
    name: 'audit',
    synopsis: ['ce audit [--cursor CURSOR] [--limit N]'],
    summary: 'the audit log, newest first: who called which method, the outcome and how long it took',
    options: {
      cursor: { type: 'string', value: 'CURSOR', help: 'read on from where the previous page ended (it prints the next cursor)' },
      limit: { type: 'string', value: 'N', help: 'entries per page, 1 to 500' },
    },
    examples: ['ce audit --limit 20', 'ce audit --json | jq \'.entries[] | select(.outcome != "ok")\''],
    async run(args, room) {
      const cursor = typeof args.flags.cursor === 'string' ? args.flags.cursor : undefined;
      const rawLimit = typeof args.flags.limit === 'string' ? args.flags.limit : undefined;
      if (rawLimit !== undefined && !/^\d+$/.test(rawLimit)) throw new UsageError('--limit takes a number from 1 to 500');
      const page = await callAsOperator(room, 'audit_list', { ...(cursor ? { cursor } : {}), ...(rawLimit ? { limit: Number(rawLimit) } : {}) });
      print(args, page, () =>
        [
          ...page.entries.map((e) => `${e.at}  ${e.participant.padEnd(20)} ${e.method.padEnd(24)} ${e.outcome.padEnd(16)} ${e.durationMs} ms`),
          ...(page.nextCursor ? [`(older entries: ce audit --cursor ${page.nextCursor})`] : []),
        ].join('\n'),
      );
      return 0;
    },
  },
];
