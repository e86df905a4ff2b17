import { noExtra, stringFlag, UsageError } from '../args';
import { print, type CeCommand } from '../command';
import { callAsOperator } from '../room-client';

export const HANDOFF_CANCEL_COMMAND: CeCommand = {
  name: 'handoff-cancel',
  synopsis: ['ce handoff-cancel ID [--reason TEXT]'],
  summary: 'cancel a handoff before it has a result (as the operator); its task becomes cancelled',
  options: { reason: { type: 'string', value: 'TEXT', help: 'why: the assignee reads it' } },
  details: ['A handoff with a result is decided with "ce approve" or "ce reject" instead.'],
  examples: ['ce handoff-cancel h_0123 --reason "done by hand"'],
  async run(args, room) {
    const [, id] = args.positional;
    if (!id) throw new UsageError('ce handoff-cancel ID: the handoff id is missing (see "ce handoffs")');
    noExtra(args, 2);
    const reason = stringFlag(args, 'reason');
    const out = await callAsOperator(room, 'handoff_cancel', { handoffId: id, ...(reason ? { reason } : {}) });
    print(args, out, () => `cancelled ${id} (its task is ${out.handoff.task?.status ?? 'gone'})`);
    return 0;
  },
};
