import type { z } from 'zod';
import type { Capability } from '../common/capabilities';
import { CONTRACT, type MethodName, type MethodOutputs } from '../common/contract';
import type { Caller } from '../common/dto';
import { RoomError } from '../common/errors';
import { EventBus } from './event-bus';
import { makeContext, type EngineContext, type Feature, type Handlers, type MethodHandler } from './feature';
import { graphsFeature } from './graphs/graphs-feature';
import { participantsFeature } from './participants-feature';
import { roomFeature } from './room-feature';
import type { ParticipantRecord } from './store/participants';
import type { Room } from './store/room';
import { hashToken, looksLikeToken } from './tokens';

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

/** Every feature of the runner, in start order. A new capability adds itself here. */
function buildFeatures(ctx: EngineContext): Feature[] {
  return [roomFeature(ctx), participantsFeature(ctx), graphsFeature(ctx)] as unknown as Feature[];
}

/**
 * The runner: one object, one method table. Every door authenticates, then calls `call()`;
 * capability checks and input validation happen here, once, for all of them.
 */
export class Engine {
  /** Committed events, published after their transaction. */
  readonly bus = new EventBus();
  readonly ctx: EngineContext;
  private readonly features: Feature[];
  private readonly handlers: Handlers<MethodName>;
  private closing: Promise<void> | undefined;

  constructor(readonly room: Room) {
    this.ctx = makeContext(room, this.bus);
    this.features = buildFeatures(this.ctx);
    const handlers: Partial<Record<MethodName, unknown>> = {};
    for (const feature of this.features) Object.assign(handlers, feature.handlers);
    const missing = (Object.keys(CONTRACT) as MethodName[]).filter((m) => !(m in handlers));
    if (missing.length > 0) throw new Error(`contract methods without an engine handler: ${missing.join(', ')}`);
    this.handlers = handlers as Handlers<MethodName>;
  }

  /** Opens an engine on a room and starts its features (restart reconciliation and the like). */
  static async start(room: Room): Promise<Engine> {
    const engine = new Engine(room);
    try {
      for (const feature of engine.features) await feature.start?.();
    } catch (error) {
      await engine.close();
      throw error;
    }
    return engine;
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
    const handler = this.handlers[method] as unknown as MethodHandler<M>;
    return handler(caller, parsed.data as never);
  }

  /** Closes features (newest first), then the room. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        for (const feature of [...this.features].reverse()) {
          try {
            await feature.close?.();
          } catch (error) {
            console.error(`[engine] closing ${feature.name} failed:`, error);
          }
        }
      } finally {
        this.room.close();
      }
    })();
    return this.closing;
  }
}
