import type { MethodInput, MethodOutputs } from '../common/contract';
import type { Caller } from '../common/dto';
import { RoomError } from '../common/errors';
import type { EngineContext, Feature } from './feature';
import type { Presence } from './presence';
import { toView } from './store/participants';
import { hashToken, mintToken } from './tokens';

type ParticipantMethods = 'participant_list' | 'participant_add' | 'participant_revoke' | 'participant_activity';

/** Participants and their tokens: add (token shown once), list, revoke; and who is connected now (presence). */
export function participantsFeature(ctx: EngineContext, presence: Presence): Feature<ParticipantMethods> {
  const { room } = ctx;

  function add(caller: Caller, input: MethodInput<'participant_add'>): MethodOutputs['participant_add'] {
    // a grant is bounded by the granter: nobody hands out what they lack, and approve only the operator grants
    // (an agent able to approve could approve its own work)
    const lacking = input.capabilities.filter((c) => !caller.capabilities.includes(c));
    if (lacking.length > 0) {
      throw new RoomError('FORBIDDEN', `you cannot grant ${lacking.join(', ')}: you do not have ${lacking.length === 1 ? 'it' : 'them'} yourself; ask the operator`);
    }
    if (input.capabilities.includes('approve') && caller.role !== 'operator') {
      throw new RoomError('FORBIDDEN', 'only the operator grants approve (a participant that can approve can approve its own handoffs): ask the person at the desktop');
    }
    if (room.participants.byName(input.name)) {
      throw new RoomError('CONFLICT', `a participant named "${input.name}" already exists: choose another name, or revoke it first`);
    }
    if (room.participants.countLive() >= ctx.limits.maxParticipants) {
      throw new RoomError('LIMIT_EXCEEDED', `the room already has ${ctx.limits.maxParticipants} participants: revoke one first`);
    }
    const token = mintToken();
    ctx.commit(() => {
      room.participants.insert({ name: input.name, role: 'agent', capabilities: input.capabilities, tokenHash: hashToken(token), at: ctx.now() });
      return {
        value: undefined,
        events: [{ kind: 'participant.added', actor: caller.name, subject: input.name, data: { capabilities: input.capabilities } }],
      };
    });
    const record = room.participants.byName(input.name);
    if (!record) throw new RoomError('INTERNAL', 'participant vanished after insert');
    return { participant: toView(record), token };
  }

  function revoke(caller: Caller, input: MethodInput<'participant_revoke'>): MethodOutputs['participant_revoke'] {
    const record = room.participants.byName(input.name);
    if (!record) throw new RoomError('NOT_FOUND', `no participant named "${input.name}": see "ce participant list"`);
    if (record.role === 'operator') {
      throw new RoomError('FORBIDDEN', 'the operator cannot be revoked: delete its token file and restart to issue a new token');
    }
    if (record.revokedAt !== null) return { participant: toView(record), changed: false };
    ctx.commit(() => {
      room.participants.revoke(record.id, ctx.now());
      return { value: undefined, events: [{ kind: 'participant.revoked', actor: caller.name, subject: record.name }] };
    });
    const after = room.participants.byName(input.name);
    if (!after) throw new RoomError('INTERNAL', 'participant vanished after revoke');
    return { participant: toView(after), changed: true };
  }

  return {
    name: 'participants',
    handlers: {
      participant_list: () => ({ participants: room.participants.list().map(toView) }),
      participant_add: add,
      participant_revoke: revoke,
      participant_activity: () => ({ participants: room.participants.list().map((p) => presence.of(p.name)) }),
    },
  };
}
