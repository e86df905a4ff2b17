import path from 'node:path';
import type { Capability } from '../common/capabilities';
import { CONTRACT, type MethodName, type MethodOutputs } from '../common/contract';
import type { Caller } from '../common/dto';
import { RoomError } from '../common/errors';
import { describeInvalidInput } from '../common/validation';
import { LIMITS, type Limits } from '../common/limits';
import { EventBus } from './event-bus';
import { makeContext, type CallContext, type EngineContext, type Feature, type Handlers, type MethodHandler } from './feature';
import { auditFeature, recordCall } from './audit-feature';
import { handoffsFeature } from './handoffs/handoffs-feature';
import { graphsFeature } from './graphs/graphs-feature';
import { participantsFeature } from './participants-feature';
import { Revocations } from './revocation';
import { roomFeature } from './room-feature';
import { ShellRegistry } from './shells/shell-registry';
import { shellsFeature } from './shells/shells-feature';
import { Fixtures } from './tasks/fixtures';
import { JOB_OPERATION, TaskJobs } from './tasks/task-jobs';
import { TaskService } from './tasks/task-service';
import { TaskLogs } from './tasks/task-logs';
import type { ParticipantRecord } from './store/participants';
import { AuditRepo } from './store/audit';
import type { Room } from './store/room';
import { hashToken, looksLikeToken } from './tokens';


function callerOf(record: ParticipantRecord): Caller {
  return { name: record.name, role: record.role, capabilities: record.capabilities };
}

/** Every feature of the runner, in start order. A new capability adds itself here. */
function buildFeatures(engine: Engine): Feature[] {
  const { ctx, limits } = engine;
  return [
    roomFeature(ctx),
    participantsFeature(ctx),
    shellsFeature(ctx, engine.shells, limits),
    handoffsFeature(ctx, engine.tasks),
    graphsFeature(ctx, engine.tasks, engine.shells.stageTerminalHost(), engine.taskLogs),
    auditFeature(engine.audit),
  ] as unknown as Feature[];
}

export interface EngineOptions {
  /** Serve the conformance fixture tools (tests only). */
  fixtures?: boolean;
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
  private readonly revocations: Revocations;
  /** Every call, who and what and how it ended (never its arguments), bounded. */
  readonly audit: AuditRepo;

  /** The room's live shells (volatile: they end with this process). */
  readonly shells: ShellRegistry;
  readonly limits: Limits;
  /** The one task layer over every kind of task (graph runs, handoff executions, jobs). */
  readonly tasks: TaskService;
  readonly jobs: TaskJobs;
  /** task-log:// records for every task (graph stages register their own reader). */
  readonly taskLogs: TaskLogs;
  /** Conformance/test fixture tools: present only when the runner was started with them on. */
  readonly fixtures: Fixtures | undefined;

  constructor(
    readonly room: Room,
    limits: Partial<Limits> = {},
    options: EngineOptions = {},
  ) {
    this.limits = { ...LIMITS, ...limits };
    this.ctx = makeContext(room, this.bus);
    this.revocations = new Revocations(this.bus, room.participants);
    this.audit = new AuditRepo(room.db, this.limits.auditRingSize);
    this.tasks = new TaskService(this.ctx);
    this.jobs = new TaskJobs(this.tasks);
    this.taskLogs = new TaskLogs(this.ctx, this.tasks);
    this.fixtures = options.fixtures ? new Fixtures(this.jobs) : undefined;
    this.shells = new ShellRegistry(this.limits, room.id, path.dirname(room.location.markdownPath), () => room.now());
    this.shells.ownerOfStage = (graphId) => room.tasks.get(graphId)?.owner ?? null;
    this.features = buildFeatures(this);
    const handlers: Partial<Record<MethodName, unknown>> = {};
    for (const feature of this.features) Object.assign(handlers, feature.handlers);
    const missing = (Object.keys(CONTRACT) as MethodName[]).filter((m) => !(m in handlers));
    if (missing.length > 0) throw new Error(`contract methods without an engine handler: ${missing.join(', ')}`);
    this.handlers = handlers as Handlers<MethodName>;
  }

  /** Opens an engine on a room and starts its features (restart reconciliation and the like). */
  static async start(room: Room, limits: Partial<Limits> = {}, options: EngineOptions = {}): Promise<Engine> {
    const engine = new Engine(room, limits, options);
    try {
      const failed = TaskJobs.reconcile(engine.tasks, () => room.tasks.liveIds(JOB_OPERATION));
      if (failed > 0) console.error(`[tasks] ${failed} job(s) of a previous runner read failed (RUNNER_RESTARTED)`);
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

  async call<M extends MethodName>(caller: Caller, method: M, rawInput: unknown, call: CallContext = {}): Promise<MethodOutputs[M]> {
    const at = this.room.now();
    const started = performance.now();
    try {
      const output = await this.dispatch(caller, method, rawInput, call);
      recordCall(this.audit, at, caller, method, started, undefined);
      return output;
    } catch (error) {
      recordCall(this.audit, at, caller, method, started, error);
      throw error;
    }
  }

  private async dispatch<M extends MethodName>(caller: Caller, method: M, rawInput: unknown, call: CallContext): Promise<MethodOutputs[M]> {
    const spec = CONTRACT[method];
    if (!this.can(caller, spec.capability)) {
      throw new RoomError('FORBIDDEN', `${method} needs the "${spec.capability}" capability, which ${caller.name} does not have`);
    }
    const parsed = spec.input.safeParse(rawInput ?? {});
    if (!parsed.success) throw describeInvalidInput(method, parsed.error);
    const handler = this.handlers[method] as unknown as MethodHandler<M>;
    return this.revocations.guard(caller, call.signal, (signal) => handler(caller, parsed.data as never, { ...call, signal }));
  }

  /** Closes features (newest first), then the room. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        this.revocations.close();
        this.jobs.close();
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
