import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { EngineContext, Feature } from '../room/index';
import type { Presence } from './presence';
import { toView } from '../store/participants';
import { hashToken, mintToken } from '../core/tokens';
import { writePrivateFile } from '../core/fs-safe';
import { participantFolders } from './participant-folders';

type ParticipantMethods = 'participant_list' | 'participant_add' | 'participant_revoke' | 'participant_rotate' | 'participant_session_close' | 'participant_activity' | 'participant_folders';

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
    const existing = room.participants.byName(input.name);
    if (existing && existing.revokedAt === null) {
      throw new RoomError('CONFLICT', `a participant named "${input.name}" already exists: choose another name, give it a new token ("ce participant rotate ${input.name}"), or revoke it first`);
    }
    if (room.participants.countLive() >= ctx.limits.maxParticipants) {
      throw new RoomError('LIMIT_EXCEEDED', `the room already has ${ctx.limits.maxParticipants} participants: revoke one first`);
    }
    const token = mintToken();
    ctx.commit(() => {
      // a revoked name added again keeps its row, so what it did before stays attributed to it
      if (existing) room.participants.reinstate(existing.id, input.capabilities, hashToken(token));
      else room.participants.insert({ name: input.name, role: 'agent', capabilities: input.capabilities, tokenHash: hashToken(token), at: ctx.now() });
      return {
        value: undefined,
        events: [{ kind: 'participant.added', actor: caller.name, subject: input.name, data: { capabilities: input.capabilities, ...(existing ? { readded: true } : {}) } }],
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

  function rotate(caller: Caller, input: MethodInput<'participant_rotate'>): MethodOutputs['participant_rotate'] {
    const record = room.participants.byName(input.name);
    if (!record) throw new RoomError('NOT_FOUND', `no participant named "${input.name}": see "ce participant list"`);
    if (record.revokedAt !== null) throw new RoomError('CONFLICT', `${input.name} is revoked: add it again ("ce participant add ${input.name} --can …") for a new token`);
    // a new token is the participant's whole power: only someone holding all of it may take it
    const beyond: string[] = record.capabilities.filter((c) => !caller.capabilities.includes(c));
    if (caller.role !== 'operator') {
      // what only the operator hands out, even to one who holds it: being the operator, and approve
      if (record.role === 'operator') beyond.push('operator');
      else if (record.capabilities.includes('approve') && !beyond.includes('approve')) beyond.push('approve');
    }
    if (beyond.length > 0) {
      throw new RoomError('FORBIDDEN', `you cannot give ${input.name} a new token: it can do what you cannot (${beyond.join(', ')}); ask the operator`);
    }
    const token = mintToken();
    ctx.commit(() => {
      room.participants.setTokenHash(record.id, hashToken(token));
      return { value: undefined, events: [{ kind: 'participant.token_rotated', actor: caller.name, subject: record.name }] };
    });
    // the operator's token lives in its file: the new one replaces it there (the old one works nowhere now)
    if (record.role === 'operator') writePrivateFile(room.operatorTokenFile, `${token}\n`);
    const after = room.participants.byName(input.name);
    if (!after) throw new RoomError('INTERNAL', 'participant vanished after rotation');
    return { participant: toView(after), token };
  }

  return {
    name: 'participants',
    handlers: {
      participant_list: () => ({ participants: room.participants.list().map(toView) }),
      participant_add: add,
      participant_revoke: revoke,
      participant_rotate: rotate,
      participant_session_close: (_caller, input) => {
        if (!presence.closeSession(input.name, input.sessionId)) {
          throw new RoomError('NOT_FOUND', `${input.name} has no open session ${JSON.stringify(input.sessionId)}: see "ce participant list"`);
        }
        return { closed: true };
      },
      participant_activity: () => ({ participants: room.participants.list().map((p) => presence.of(p.name)) }),
      participant_folders: (caller, input) => participantFolders(ctx, caller, input),
    },
  };
}
