import { parseCapabilities } from '../../common/capabilities';
import type { ParticipantView } from '../../common/dto';
import { UsageError } from '../args';
import { print, type CeCommand } from '../command';
import { callAsOperator, readAs } from '../room-client';

function participantLine(p: ParticipantView): string {
  const state = p.revokedAt ? `revoked ${p.revokedAt}` : 'active';
  return `${p.name.padEnd(24)} ${p.role.padEnd(9)} ${p.capabilities.join(',').padEnd(26)} ${state}`;
}

export const PARTICIPANT_COMMANDS: CeCommand[] = [
  {
    name: 'participant',
    usage: [
      'ce participant add NAME --can read,write[,approve,operate]   add an agent; prints its token once',
      'ce participant list                                          list participants',
      "ce participant revoke NAME                                   revoke a participant's token",
    ],
    async run(args, room) {
      const [, sub, name, ...extra] = args.positional;
      if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
      switch (sub) {
        case 'add': {
          if (!name) throw new UsageError('ce participant add NAME --can read,write: NAME is missing');
          const can = typeof args.flags.can === 'string' ? args.flags.can : undefined;
          if (!can) throw new UsageError('ce participant add NAME --can read,write: say what it may do with --can');
          const created = await callAsOperator(room, 'participant_add', { name, capabilities: parseCapabilities(can) });
          print(args, created, () =>
            [
              `added ${created.participant.name} (${created.participant.capabilities.join(',')})`,
              `token (shown once, store it now): ${created.token}`,
            ].join('\n'),
          );
          return 0;
        }
        case 'list': {
          if (name) throw new UsageError(`unexpected argument ${JSON.stringify(name)}`);
          const { participants } = await readAs(room, 'participant_list', {});
          print(args, { participants }, () => participants.map(participantLine).join('\n'));
          return 0;
        }
        case 'revoke': {
          if (!name) throw new UsageError('ce participant revoke NAME: NAME is missing');
          const out = await callAsOperator(room, 'participant_revoke', { name });
          print(args, out, () => (out.changed ? `revoked ${name}` : `${name} was already revoked (${out.participant.revokedAt ?? ''})`));
          return 0;
        }
        default:
          throw new UsageError(`ce participant ${sub ?? ''}: use add, list or revoke`);
      }
    },
  },
];
