import type { MethodName, MethodOutputs } from '../common/contract';
import type { Caller } from '../common/dto';
import type { Limits } from '../common/limits';
import type { EngineContext, Feature } from './room/index';
import { auditFeature, participantsFeature, uiFeature, PARTICIPANT_EVENTS, type BrowserSignIns, type Presence } from './people/index';
import type { AuditRepo } from './store/audit';
import { HANDOFF_EVENTS, handoffsFeature, handoffWorkspaces } from './handoffs/index';
import { GRAPH_EVENTS, graphsFeature } from './graphs/index';
import { agentsFeature } from './agents/index';
import { SCHEDULE_EVENTS, schedulesFeature } from './schedules/index';
import { SPEND_EVENTS, spendFeature } from './spend/index';
import type { WorkspaceService } from './workspaces/index';
import { roomFeature } from './room/index';
import { SHELL_EVENTS, shellsFeature, type ShellRegistry } from './shells/index';
import { TASK_EVENTS, tasksFeature, type TaskLogs, type TaskService } from './tasks/index';
import { HOST_EVENTS, HostWorkspaces, hostsFeature, NodeLinks, RemoteAgents, RemoteShells, RemoteStages } from './hosts/index';
import { schedulesContributor, spendContributor, summaryFeature } from './summary/index';

/**
 * What the features are built from: the engine's shared services and its calls (engine.ts's Engine is one;
 * named here as a shape so this file does not import the engine that imports it).
 */
export interface FeatureHost {
  readonly ctx: EngineContext;
  readonly limits: Limits;
  readonly workspaces: WorkspaceService;
  readonly shells: ShellRegistry;
  readonly tasks: TaskService;
  readonly taskLogs: TaskLogs;
  readonly presence: Presence;
  readonly uiSessions: BrowserSignIns;
  readonly audit: AuditRepo;
  /** Set here: the participant a forwarded Host header was made for (an agent started on a host). */
  forwardedHost: (host: string) => string | null;
  call<M extends MethodName>(caller: Caller, method: M, input: unknown): Promise<MethodOutputs[M]>;
  authenticate(token: string): Caller | null;
  operator(): Caller;
  readInside<M extends MethodName>(caller: Caller, method: M, input: unknown): Promise<MethodOutputs[M]>;
}

/** Every feature of the runner, in start order. A new capability adds itself here. */
export function buildFeatures(engine: FeatureHost): Feature[] {
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
      // a rejection's reason and comments, typed into the terminals the room started for the agent (its client's
      // prompt): here, and on the room's hosts (sent there in order; one the host's link could not deliver is said
      // as an event, host.input_lost: the reason is kept on the handoff either way)
      (participant, bytes, handoffId) => {
        const op = engine.operator();
        const mine = engine.shells.list(op).filter((s) => s.alive && s.agent?.participant === participant);
        for (const s of mine) engine.shells.get(op, s.id).write(bytes, 'commonroom', ctx.now());
        const there =
          remoteAgents?.typeToRuns(participant, bytes, handoffId, ({ host, ...data }) => {
            try {
              ctx.commit(() => ({ value: undefined, events: [{ kind: 'host.input_lost', actor: null, subject: host, data }] }));
            } catch {
              // the room is closing: the reason is on the handoff still
            }
          }) ?? 0;
        return mine.length + there;
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
