import { z } from 'zod';
import type { Capability } from '../common/capabilities';
import { CONTRACT, type MethodInput, type MethodName, type MethodOutputs } from '../common/contract';
import type { Caller, RoomInfo } from '../common/dto';
import { RoomError } from '../common/errors';
import { LIMITS } from '../common/limits';
import { RUNNER_VERSION } from '../common/version';
import type { Room } from './store/room';
import { toView, type ParticipantRecord } from './store/participants';
import { hashToken, looksLikeToken, mintToken } from './tokens';
import { EventBus } from './event-bus';

type Handlers = { [M in MethodName]: (caller: Caller, input: MethodInput<M>) => MethodOutputs[M] | Promise<MethodOutputs[M]> };

/** Turns a schema failure into one line a person can act on. */
export function describeInvalidInput(method: string, error: z.ZodError): RoomError {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : 'arguments';
    return `${where}: ${issue.message}`;
  });
  return new RoomError('INVALID_INPUT', `invalid arguments for ${method}: ${parts.join('; ')}`);
}

function callerOf(record: ParticipantRecord): Caller {
  return { name: record.name, role: record.role, capabilities: record.capabilities };
}

/**
 * The runner: one object, one method table. Every door authenticates, then calls `call()`;
 * capability checks and input validation happen here, once, for all of them.
 */
export class Engine {
  private readonly handlers: Handlers;
  /** Committed events, published after their transaction. */
  readonly bus = new EventBus();

  constructor(readonly room: Room) {
    this.handlers = {
      room_info: () => this.roomInfo(),
      participant_list: () => ({ participants: this.room.participants.list().map(toView) }),
      participant_add: (caller, input) => this.addParticipant(caller, input),
      participant_revoke: (caller, input) => this.revokeParticipant(caller, input),
    };
  }

  /** Resolves a bearer token to its live participant, or null. */
  authenticate(token: string): Caller | null {
    if (!looksLikeToken(token)) return null;
    const record = this.room.participants.byTokenHash(hashToken(token));
    return record ? callerOf(record) : null;
  }

  /** The caller the desktop app and the local CLI act as. */
  operator(): Caller {
    const record = this.room.participants.operator();
    if (!record) throw new RoomError('INTERNAL', 'the room has no operator');
    return callerOf(record);
  }

  can(caller: Caller, capability: Capability): boolean {
    return caller.capabilities.includes(capability);
  }

  /** Methods a caller may call (doors list only these). */
  methodsFor(caller: Caller): MethodName[] {
    return (Object.keys(CONTRACT) as MethodName[]).filter((m) => this.can(caller, CONTRACT[m].capability));
  }

  async call<M extends MethodName>(caller: Caller, method: M, rawInput: unknown): Promise<MethodOutputs[M]> {
    const spec = CONTRACT[method];
    if (!this.can(caller, spec.capability)) {
      throw new RoomError('FORBIDDEN', `${method} needs the "${spec.capability}" capability, which ${caller.name} does not have`);
    }
    const parsed = spec.input.safeParse(rawInput ?? {});
    if (!parsed.success) throw describeInvalidInput(method, parsed.error);
    const handler = this.handlers[method] as (c: Caller, i: unknown) => MethodOutputs[M] | Promise<MethodOutputs[M]>;
    return handler(caller, parsed.data);
  }

  close(): void {
    this.room.close();
  }

  private roomInfo(): RoomInfo {
    const { room } = this;
    return {
      room: {
        markdownPath: room.location.markdownPath,
        databasePath: room.location.databasePath,
        id: room.id,
        createdAt: room.createdAt,
      },
      schemaVersion: room.schemaVersion,
      runnerVersion: RUNNER_VERSION,
      counts: { participants: room.participants.countLive(), events: room.events.count() },
    };
  }

  private addParticipant(caller: Caller, input: MethodInput<'participant_add'>): MethodOutputs['participant_add'] {
    const { room } = this;
    if (room.participants.byName(input.name)) {
      throw new RoomError('CONFLICT', `a participant named "${input.name}" already exists: choose another name, or revoke it first`);
    }
    if (room.participants.countLive() >= LIMITS.maxParticipants) {
      throw new RoomError('LIMIT_EXCEEDED', `the room already has ${LIMITS.maxParticipants} participants: revoke one first`);
    }
    const token = mintToken();
    const at = room.now();
    const event = { at, kind: 'participant.added', actor: caller.name, subject: input.name, data: { capabilities: input.capabilities } };
    const id = room.db
      .transaction(() => {
        room.participants.insert({ name: input.name, role: 'agent', capabilities: input.capabilities, tokenHash: hashToken(token), at });
        return room.events.append(event);
      })
      .immediate();
    this.bus.publish({ id, ...event });
    const record = room.participants.byName(input.name);
    if (!record) throw new RoomError('INTERNAL', 'participant vanished after insert');
    return { participant: toView(record), token };
  }

  private revokeParticipant(caller: Caller, input: MethodInput<'participant_revoke'>): MethodOutputs['participant_revoke'] {
    const { room } = this;
    const record = room.participants.byName(input.name);
    if (!record) throw new RoomError('NOT_FOUND', `no participant named "${input.name}": see "ce participant list"`);
    if (record.role === 'operator') {
      throw new RoomError('FORBIDDEN', 'the operator cannot be revoked: delete its token file and restart to issue a new token');
    }
    if (record.revokedAt !== null) return { participant: toView(record), changed: false };
    const at = room.now();
    const event = { at, kind: 'participant.revoked', actor: caller.name, subject: record.name, data: {} };
    const id = room.db
      .transaction(() => {
        room.participants.revoke(record.id, at);
        return room.events.append(event);
      })
      .immediate();
    this.bus.publish({ id, ...event });
    const after = room.participants.byName(input.name);
    if (!after) throw new RoomError('INTERNAL', 'participant vanished after revoke');
    return { participant: toView(after), changed: true };
  }
}
