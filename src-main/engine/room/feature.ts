import path from 'node:path';
import type { MethodInput, MethodName, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { isDiskFullError, RoomError } from '../../common/errors';
import type { Limits } from '../../common/limits';
import type { EventBus, RoomEvent } from '../core/event-bus';
import type { IdSource } from '../core/ids';
import type { TaggedProcess } from '../process/process-tree';
import type { Room } from './room';
import { RunnerHealth } from '../core/runner-health';
import { AgentSandbox } from '../process/agent-sandbox';
import { ProcessLauncher } from '../process/launcher';
import { writableFoldersFor } from '../store/participants';

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
  /** What the runner cannot do right now (a full disk): kept in memory, shown by room_info. */
  health: RunnerHealth;
  /** The OS sandbox agents' shells and graph stages run in (process/agent-sandbox.ts). */
  sandbox: AgentSandbox;
  /** Where and how a shell, a stage or an agent's client starts (process/launcher.ts): every process asks it. */
  launcher: ProcessLauncher;
  /**
   * Runs `fn` in one BEGIN IMMEDIATE transaction, appends the events it returns in the same transaction,
   * and publishes them after the commit. Nothing is published when `fn` throws (nothing was written).
   */
  commit<T>(fn: () => { value: T; events: EventInput[] }): T;
  /**
   * Adds an event to the commit that is running (appended after the events `fn` returns). Throws outside a
   * commit: a write that records its own event (a task row's) can only happen inside one.
   */
  emit(event: EventInput): void;
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
/** What every feature's start is handed: one look at the process table serves all of them. */
export interface FeatureStartup {
  /** Live processes carrying one of this room's tags (a previous runner's leftovers), looked up once at start. */
  readonly tagged: readonly TaggedProcess[];
}

export interface Feature<K extends MethodName = MethodName> {
  name: string;
  handlers: Handlers<K>;
  start?(startup: FeatureStartup): void | Promise<void>;
  close?(): void | Promise<void>;
}

export function makeContext(room: Room, bus: EventBus, deps: { ids: IdSource; limits: Limits }): EngineContext {
  // events emitted by writes inside the running commit (null: no commit is running)
  let emitted: EventInput[] | null = null;
  const health = new RunnerHealth(() => room.now(), path.dirname(room.location.markdownPath));
  /** The body of every commit: `fn`, then its events appended in the same transaction. */
  const body = (fn: () => { value: unknown; events: EventInput[] }, at: string): { value: unknown; published: RoomEvent[] } => {
    const outer = emitted;
    emitted = [];
    let out: { value: unknown; events: EventInput[] };
    let inputs: EventInput[];
    try {
      out = fn();
      inputs = [...out.events, ...emitted];
    } finally {
      emitted = outer;
    }
    const events = inputs.map((e) => ({ at, kind: e.kind, actor: e.actor, subject: e.subject, data: e.data ?? {} }));
    const ids = room.events.appendAll(events);
    const rows: RoomEvent[] = events.map((e, i) => ({ id: ids[i] as number, ...e }));
    return { value: out.value, published: rows };
  };
  // built on the first commit, once: `db.transaction()` makes its wrappers anew on every call (a nested commit
  // runs the same function, which better-sqlite3 turns into a savepoint)
  let transaction: ReturnType<typeof room.db.transaction<typeof body>> | undefined;
  const sandbox = new AgentSandbox({
    configDir: room.paths.configDir,
    dataDir: room.paths.dataDir,
    markdownPath: room.location.markdownPath,
    databasePath: room.location.databasePath,
    lockPath: room.location.lockPath,
  }, process.env, {
    // the folders the person let this agent write besides its work (participant_folders), as they are now
    extraWritable: (owner) => writableFoldersFor(room.participants, owner),
  });
  return {
    room,
    bus,
    ids: deps.ids,
    limits: deps.limits,
    health,
    sandbox,
    launcher: new ProcessLauncher(sandbox),
    now: () => room.now(),
    elapsedMs: () => performance.now(),
    commit<T>(fn: () => { value: T; events: EventInput[] }): T {
      if (room.readOnly) throw readOnlyRefusal('this change');
      const at = room.now();
      const outermost = emitted === null;
      let committed: { value: unknown; published: RoomEvent[] };
      try {
        transaction ??= room.db.transaction(body);
        committed = transaction.immediate(fn, at);
      } catch (error) {
        // rolled back: nothing of it was written; a full disk is recorded (one log line while it lasts)
        if (outermost && isDiskFullError(error)) health.failed('store', error);
        throw error;
      }
      // only a commit that stored events says the store works again: an empty one (a tick with nothing to
      // apply) succeeds even on a full disk, and would make the health flap between failing and ok
      if (outermost && committed.published.length > 0) health.ok('store', 'changes to the room are stored');
      for (const event of committed.published) bus.publish(event);
      return committed.value as T;
    },
    emit(event: EventInput): void {
      if (emitted === null) throw new Error('an event is emitted only inside ctx.commit');
      emitted.push(event);
    },
  };
}

/** What a read-only engine (over the room file, no lock) answers for anything that would write. */
export function readOnlyRefusal(what: string): RoomError {
  return new RoomError('UNAVAILABLE', `${what} changes the room, but the room is open read-only here (no room process holds it): start one ("commonroom serve") or make the change through it`);
}
