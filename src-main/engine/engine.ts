import path from 'node:path';
import type { Capability } from '../common/capabilities';
import { CONTRACT, type MethodName, type MethodOutputs, type MethodSpec } from '../common/contract';
import type { TaskRecord } from '../common/task-record';
import type { Caller } from '../common/dto';
import { RoomError } from '../common/errors';
import { describeInvalidInput } from '../common/validation';
import { LIMITS, type Limits } from '../common/limits';
import { EventBus } from './core/event-bus';
import { makeContext, readOnlyRefusal, type CallContext, type EngineContext, type Feature, type Handlers, type MethodHandler } from './room/index';
import { auditFeature, openAuditLog, recordCall } from './people/index';
import { handoffsFeature } from './handoffs/index';
import { handoffWorkspaces } from './handoffs/index';
import { graphRunReads, graphsFeature } from './graphs/index';
import { participantsFeature } from './people/index';
import { Presence } from './people/index';
import { agentsFeature } from './agents/index';
import { SCHEDULE_EVENTS, schedulesFeature } from './schedules/index';
import { SPEND_EVENTS, spendFeature } from './spend/index';
import { uiFeature } from './people/index';
import { WorkspaceService } from './workspaces/index';
import { BrowserSignIns } from './people/index';
import { Revocations } from './people/index';
import { roomFeature } from './room/index';
import { ShellRegistry } from './shells/index';
import { shellsFeature } from './shells/index';
import { TaskJobs } from './tasks/index';
import { JOB_OPERATION } from './tasks/index';
import { TaskService } from './tasks/index';
import { TaskLogs, tasksFeature } from './tasks/index';
import { HOST_EVENTS, HostWorkspaces, hostsFeature, NodeLinks, RemoteAgents, RemoteShells, RemoteStages } from './hosts/index';
import { schedulesContributor, spendContributor, summaryFeature } from './summary/index';
import { HANDOFF_EVENTS } from './handoffs/index';
import { GRAPH_EVENTS } from './graphs/index';
import { TASK_EVENTS } from './tasks/index';
import { PARTICIPANT_EVENTS } from './people/index';
import { SHELL_EVENTS } from './shells/index';
import { toCaller } from './store/participants';
import type { AuditRepo } from './store/audit';
import type { Room } from './room/index';
import { hashToken, looksLikeToken } from './core/tokens';
import { procTags, randomIds, type IdSource } from './core/ids';
import { findTagged } from './process/process-tree';
import { diskFullRefusal } from './core/runner-health';
import type { DoorEngine } from './ports';
import type { ShellAttachment } from './shells/index';
import type { ShellViewer, Watermarks } from './shells/index';


/** Every feature of the runner, in start order. A new capability adds itself here. */
function buildFeatures(engine: Engine): Feature[] {
  const { ctx, limits } = engine;
  // one resolver of a handoff's workspace for the features that work in one (shells, graph stages)
  const workspaces = handoffWorkspaces(ctx, engine.workspaces);
  // one link per host's node, shared by the shells and the graph stages placed there
  const links = ctx.room.readOnly ? undefined : new NodeLinks(ctx);
  const remoteShells = links ? new RemoteShells(links) : undefined;
  const remoteStages = links ? new RemoteStages(links) : undefined;
  // agents started on a host: the room's endpoint forwarded there per run, its Host header accepted for that run
  const remoteAgents = links && remoteShells ? new RemoteAgents(links, remoteShells) : undefined;
  engine.forwardedHost = (host) => remoteAgents?.participantFor(host) ?? null;
  // a handoff's worktree on a host: made there by its node, fetched back here for the review and the merge
  if (links) engine.workspaces.useHosts(new HostWorkspaces(links));
  const invoke = <M extends MethodName>(caller: Caller, method: M, input: unknown) => engine.call(caller, method, input);
  let agents: ReturnType<typeof agentsFeature> | undefined;
  return [
    // the room's history shows each feature's events to whom that feature says
    roomFeature(ctx, [HANDOFF_EVENTS, GRAPH_EVENTS, TASK_EVENTS, PARTICIPANT_EVENTS, SHELL_EVENTS, HOST_EVENTS, SCHEDULE_EVENTS, SPEND_EVENTS]),
    participantsFeature(ctx, engine.presence),
    tasksFeature(ctx, engine.tasks),
    shellsFeature(ctx, engine.shells, limits, (caller, handoffId, cwd) => workspaces.placeFor(caller, handoffId, cwd), remoteShells),
    handoffsFeature(
      ctx,
      engine.tasks,
      engine.workspaces,
      // the shells there end with the work: this machine's, and those on the room's hosts (a host's worktree)
      async (owner, folder, why) => (await engine.shells.closeIn(owner, folder, why)) + ((await remoteShells?.closeIn(owner, folder)) ?? 0),
      // a rejection's reason and comments, typed into the terminals the room started for the agent (its client's prompt)
      (participant, bytes) => {
        const op = engine.operator();
        const mine = engine.shells.list(op).filter((s) => s.alive && s.agent?.participant === participant);
        for (const s of mine) engine.shells.get(op, s.id).write(bytes, 'commonroom', ctx.now());
        return mine.length;
      },
    ),
    graphsFeature(ctx, engine.tasks, workspaces, engine.shells.stageTerminalHost(), engine.taskLogs, remoteStages),
    auditFeature(engine.audit),
    uiFeature(engine.uiSessions),
    (agents = agentsFeature(ctx, engine.shells, invoke, (token) => engine.authenticate(token), remoteAgents)),
    hostsFeature(ctx, remoteShells),
    // spend and envelopes: which runs are live, the agents feature says (its runs are volatile, its own)
    spendFeature(ctx, invoke, () => agents?.liveRuns() ?? []),
    // after graphs and agents: it starts them (through Engine.call, as each schedule's owner) once they are all up
    schedulesFeature(ctx, invoke),
    // the morning summary reads the others as its caller, inside its own audited call; a feature's live part
    // of it (spend against envelopes, schedules) is a SummaryContributor passed here
    summaryFeature(ctx, (caller, method, input) => engine.readInside(caller, method, input), [spendContributor, schedulesContributor]),
  ] as unknown as Feature[];
}

export interface EngineOptions {
  /** Where the engine's ids come from (tests may make them predictable; formats must stay the same). */
  ids?: IdSource;
}

/**
 * The runner: one object, one method table. Every door authenticates, then calls `call()`;
 * capability checks and input validation happen here, once, for all of them.
 */
export class Engine implements DoorEngine {
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
  /** The one service of handoffs' worktrees (workspaces/ builds their repositories), shared by the features. */
  readonly workspaces: WorkspaceService;
  readonly jobs: TaskJobs;
  /** task-log:// records for every task (graph stages register their own reader). */
  readonly taskLogs: TaskLogs;
  /** Who is connected now and their last call (volatile; the MCP door reports it). */
  readonly presence: Presence;
  /** The browser UI's sign-ins (volatile; the bridge checks its sockets against them). */
  readonly uiSessions: BrowserSignIns;
  /**
   * The participant a forwarded Host header (`127.0.0.1:PORT` of a host's loopback, forwarded to this room's
   * endpoint for an agent started there) was made for, or null: the front door accepts it for that run only.
   */
  forwardedHost: (host: string) => string | null = () => null;

  constructor(
    readonly room: Room,
    limits: Partial<Limits> = {},
    options: EngineOptions = {},
  ) {
    this.limits = { ...LIMITS, ...limits };
    this.ctx = makeContext(room, this.bus, { ids: options.ids ?? randomIds, limits: this.limits });
    // completing a handoff ends its assignee's writing in the worktree: its next shells and stages there are read-only
    // the one service of handoffs' worktrees, listing a workspace's graph runs as graphs/ reads them
    this.workspaces = new WorkspaceService(this.ctx, undefined, graphRunReads(this.ctx));
    this.ctx.sandbox.addHooks({ workFolderWritable: (owner, cwd) => this.workspaces.workFolderWritable(owner, cwd) });
    this.revocations = new Revocations(this.bus, room.participants);
    // the operator's token replaced: every browser sign-in made with the old one's authority ends too
    this.bus.subscribe((event) => {
      if (event.kind === 'participant.token_rotated' && event.subject === room.participants.operator()?.name) this.uiSessions.revokeAll();
    });
    this.audit = openAuditLog(room.db, this.limits.auditRingSize, (error) => this.ctx.health.failed('store', error));
    this.tasks = new TaskService(this.ctx);
    this.jobs = new TaskJobs(this.tasks);
    this.taskLogs = new TaskLogs(this.ctx, this.tasks);
    this.presence = new Presence(() => room.now());
    this.uiSessions = new BrowserSignIns(() => room.now());
    this.shells = new ShellRegistry(this.ctx, path.dirname(room.location.markdownPath));
    this.features = buildFeatures(this);
    const handlers: Partial<Record<MethodName, unknown>> = {};
    for (const feature of this.features) Object.assign(handlers, feature.handlers);
    const missing = (Object.keys(CONTRACT) as MethodName[]).filter((m) => !(m in handlers));
    if (missing.length > 0) throw new Error(`contract methods without an engine handler: ${missing.join(', ')}`);
    this.handlers = handlers as Handlers<MethodName>;
  }

  /**
   * Opens an engine on a room and starts its features (restart reconciliation and the like). Over a room
   * opened read-only (`Room.openReadOnly`) nothing starts: the engine serves the contract's read methods only.
   */
  static async start(room: Room, limits: Partial<Limits> = {}, options: EngineOptions = {}): Promise<Engine> {
    const engine = new Engine(room, limits, options);
    if (room.readOnly) return engine;
    try {
      const failed = TaskJobs.reconcile(engine.tasks, () => room.tasks.liveIds(JOB_OPERATION));
      if (failed > 0) console.error(`[tasks] ${failed} job(s) of a previous runner read failed (RUNNER_RESTARTED)`);
      // one look at the process table for every feature's leftovers (shells, stages): a /proc scan reads every
      // process on the machine, and each feature made its own before the first answer
      const startup = { tagged: findTagged(procTags.roomPrefix(room.id), { prefix: true }) };
      for (const feature of engine.features) await feature.start?.(startup);
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
    return record ? toCaller(record) : null;
  }

  /** The caller the desktop app and the local CLI act as. */
  operator(): Caller {
    const record = this.room.participants.operator();
    if (!record) throw new RoomError('INTERNAL', 'the room has no operator');
    return toCaller(record);
  }

  /**
   * A named participant as a caller, for a caller with `operate` acting on its behalf (the CLI's
   * `--participant NAME`): that participant's capabilities and visibility then apply, not the operator's.
   */
  participantAs(actor: Caller, name: string): Caller {
    if (!this.can(actor, 'operate')) throw new RoomError('FORBIDDEN', `acting as another participant needs the "operate" capability, which ${actor.name} does not have`);
    const record = this.room.participants.byName(name);
    if (!record || record.revokedAt !== null) throw new RoomError('NOT_FOUND', `no active participant named "${name}": see "ce participant list"`);
    return toCaller(record);
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
      if (!this.room.readOnly && !(CONTRACT[method] as MethodSpec).unaudited) recordCall(this.audit, at, caller, method, started, undefined, rawInput);
      return output;
    } catch (thrown) {
      // a full disk is a clear refusal naming the folder, never an internal error with a stack
      const error = diskFullRefusal(thrown, path.dirname(this.room.location.markdownPath));
      if (!this.room.readOnly && !(CONTRACT[method] as MethodSpec).unaudited) recordCall(this.audit, at, caller, method, started, error, rawInput);
      throw error;
    }
  }

  private async dispatch<M extends MethodName>(caller: Caller, method: M, rawInput: unknown, call: CallContext): Promise<MethodOutputs[M]> {
    const spec = CONTRACT[method];
    if (!this.can(caller, spec.capability)) {
      throw new RoomError('FORBIDDEN', `${method} needs the "${spec.capability}" capability, which ${caller.name} does not have`);
    }
    if (this.room.readOnly && !(spec as { readOnly?: true }).readOnly) throw readOnlyRefusal(method);
    const parsed = spec.input().safeParse(rawInput ?? {});
    if (!parsed.success) throw describeInvalidInput(method, parsed.error);
    const handler = this.handlers[method] as unknown as MethodHandler<M>;
    return this.revocations.guard(caller, call.signal, (signalOf) => handler(caller, parsed.data as never, new LazySignalCall(signalOf)));
  }

  /**
   * A read one feature makes for another inside a call that is already audited (the summary's reads): the same
   * capability and input checks and the caller's visibility, without an audit row of its own.
   */
  readInside<M extends MethodName>(caller: Caller, method: M, input: unknown): Promise<MethodOutputs[M]> {
    return this.dispatch(caller, method, input, {});
  }

  /**
   * Calls a method that creates a task (a graph run, a handoff's execution) and answers its output together
   * with the task it created, as the caller sees it: a door answers with the task without reading back.
   */
  async callForTask<M extends MethodName>(caller: Caller, method: M, rawInput: unknown, call: CallContext = {}): Promise<{ output: MethodOutputs[M]; task: TaskRecord }> {
    const taskOf = (CONTRACT[method] as MethodSpec).task;
    if (!taskOf) throw new RoomError('INVALID_INPUT', `${method} does not create a task`);
    const output = await this.call(caller, method, rawInput, call);
    return { output, task: this.tasks.get(caller, taskOf.taskIdOf(output)) };
  }

  get sandbox(): EngineContext['sandbox'] {
    return this.ctx.sandbox;
  }

  attachShell(caller: Caller, shellId: string, viewer: ShellViewer, from: number, watermarks?: Watermarks): ShellAttachment {
    const attachment = this.shells.attach(caller, shellId, viewer, from, watermarks);
    // one audit row per attachment that typed or resized (as shell_io, its call's equivalent), not per keystroke
    let recorded = false;
    const record = (): void => {
      if (recorded || this.room.readOnly) return;
      recorded = true;
      recordCall(this.audit, this.room.now(), caller, 'shell_io', performance.now(), undefined, { shellId });
    };
    return {
      ...attachment,
      write: (text) => {
        attachment.write(text);
        record();
      },
      resize: (cols, rows, take) => {
        const driving = attachment.resize(cols, rows, take);
        if (driving) record();
        return driving;
      },
    };
  }

  /** Closes features (newest first), then the room. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.room.readOnly) return this.room.close(); // nothing was started, nothing may be written
      try {
        this.revocations.close();
        this.presence.close();
        this.uiSessions.revokeAll();
        this.jobs.close();
        for (const feature of [...this.features].reverse()) {
          try {
            await feature.close?.();
          } catch (error) {
            console.error(`[engine] closing ${feature.name} failed:`, error);
          }
        }
      } finally {
        try {
          this.audit.flush();
        } catch (error) {
          console.error(`[audit] could not write the last calls: ${error instanceof Error ? error.message : 'unknown'}`);
        }
        this.room.close();
      }
    })();
    return this.closing;
  }
}

/**
 * The handler's call context, its signal made when a handler first reads it (a wait, a shell run).
 *
 * A class with its getter on the prototype, not an object literal with a getter: V8 makes a literal's getter
 * pair in the old generation, one per call. That old object reached, through the getter's closure, the guard's
 * race and so the call's answer, and an old object is a root for every young collection: each answer (a 1 MiB
 * shell page, say) outlived the young collections after it, was promoted, and waited for the next full
 * collection. With the engine alone reading 1 MiB pages one after another, most of what was allocated was
 * promoted with the literal, a small part with this class (bench/investigations/getter-promotion.js shows it).
 */
class LazySignalCall implements CallContext {
  constructor(private readonly signalOf: () => AbortSignal) {}

  get signal(): AbortSignal {
    return this.signalOf();
  }
}
