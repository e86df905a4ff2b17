import type { MethodInput, MethodName, MethodOutputs } from '../common/contract';
import type { Caller } from '../common/dto';
import type { Limits } from '../common/limits';
import type { EventBus, RoomEvent } from './event-bus';
import type { IdSource } from './ids';
import type { Room } from './store/room';

/** Per-call context from the door: the client's cancellation (a closed request, notifications/cancelled). */
export interface CallContext {
  signal?: AbortSignal | undefined;
}

export type MethodHandler<M extends MethodName> = (
  caller: Caller,
  input: MethodInput<M>,
  call: CallContext,
) => MethodOutputs[M] | Promise<MethodOutputs[M]>;
export type Handlers<K extends MethodName> = { [M in K]: MethodHandler<M> };

/**
 * What a feature gets from the engine: the room, the live bus, the one way to commit with events, and the
 * engine's clock, id source and limits (features never read the global LIMITS, Date.now() or crypto ids).
 */
export interface EngineContext {
  room: Room;
  bus: EventBus;
  /** Wall-clock time, as recorded in rows and events (the room's clock: a test may move it). */
  now(): string;
  /** Milliseconds on a monotonic clock, for measuring waits (never recorded). */
  elapsedMs(): number;
  ids: IdSource;
  limits: Limits;
  /**
   * Runs `fn` in one BEGIN IMMEDIATE transaction, appends the events it returns in the same transaction,
   * and publishes them after the commit. Nothing is published when `fn` throws (nothing was written).
   */
  commit<T>(fn: () => { value: T; events: EventInput[] }): T;
}

export interface EventInput {
  kind: string;
  actor: string | null;
  subject: string | null;
  data?: unknown;
}

/**
 * A capability of the runner: the contract methods it implements, and its lifecycle. `start` runs once the
 * room is open (restart reconciliation goes there); `close` runs before the room closes, newest feature first.
 */
export interface Feature<K extends MethodName = MethodName> {
  name: string;
  handlers: Handlers<K>;
  start?(): void | Promise<void>;
  close?(): void | Promise<void>;
}

export function makeContext(room: Room, bus: EventBus, deps: { ids: IdSource; limits: Limits }): EngineContext {
  return {
    room,
    bus,
    ids: deps.ids,
    limits: deps.limits,
    now: () => room.now(),
    elapsedMs: () => performance.now(),
    commit<T>(fn: () => { value: T; events: EventInput[] }): T {
      const at = room.now();
      const { value, published } = room.db
        .transaction(() => {
          const out = fn();
          const rows: RoomEvent[] = out.events.map((e) => {
            const data = e.data ?? {};
            const id = room.events.append({ at, kind: e.kind, actor: e.actor, subject: e.subject, data });
            return { id, at, kind: e.kind, actor: e.actor, subject: e.subject, data };
          });
          return { value: out.value, published: rows };
        })
        .immediate();
      for (const event of published) bus.publish(event);
      return value;
    },
  };
}
