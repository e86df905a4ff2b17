import { z } from 'zod';
import { graphSpec, stageId } from '../graphs/graph-spec';
import type { GraphState, StageErrorCode, StageState } from '../graphs/stage-machine';
import { LIMITS } from '../limits';
import { AGENT_PATTERN_SYNTAX } from '../safe-pattern';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import { cursorParam, limitParam } from '../paging';
import { waitMsParam } from '../wait-param';

// gr_… since ids carry their kind; a UUID in rooms made before that (stored ids are never rewritten)
const graphId = lazily(() =>
  z
    .string()
    .regex(
      /^(gr_[A-Za-z0-9_-]{16,43}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/,
      'a graph id is the graphId tasks_run returned (gr_…; tasks_list shows the graphs you may see)',
    )
    .describe('the graphId tasks_run returned (gr_…)'),
);

/**
 * Task graphs. Running and cancelling need `write` (a stage is a process on the person's machine); reading
 * needs `read`. A participant sees the graphs it submitted; `operate` or `approve` see every graph of the room.
 * A graph another participant cannot see answers "unknown graph", exactly like one that does not exist.
 */
export const GRAPH_METHODS = {
  tasks_run: {
    description:
      'Submit a task graph: stages (processes) with dependsOn, run in dependency order up to maxParallel at once. ' +
      'Returns the graph id and the initial stage states at once; poll tasks_status. A stage: {id, command (argv array or ' +
      'shell string), cwd?, env?, dependsOn?, timeoutMs?, retries?, retryBackoffMs?, killGraceMs?, tty?, readiness? ' +
      '({log: regex, matched per output line} | {port} | {url}: dependents start once a long-running stage is ready), host? (a host of the room: the stage runs there; a stage ' +
      "takes the graph's host unless it names its own)}. " +
      'onFailure: "skip-dependents" (default) or "cancel-all". ' +
      AGENT_PATTERN_SYNTAX,
    capability: 'write',
    input: graphSpec,
    mcpTool: true,
    // MCP Tasks clients may get the graph run's task back (its id is the graph id)
    task: { support: 'optional', taskIdOf: (output) => (output as { taskId: string }).taskId },
  },
  tasks_status: {
    description:
      'State of a graph (progress done/total, timings, each stage) or, with stageId, of one stage with a bounded slice of ' +
      'its log: omit cursor for the tail, pass the returned log.nextCursor as cursor to read on; "more" says whether more is already there. ' +
      'stages: false answers with the graph alone (its state and progress counts): the cheap way to follow a large graph; ' +
      'with until: "ended" and waitMs, one call waits for the whole graph to end. ' +
      `waitMs (at most ${LIMITS.maxStatusWaitMs} ms) answers as soon as something changes instead of polling in a tight loop.`,
    capability: 'read',
    input: lazily(() => z
      .object({
        graphId: graphId(),
        stageId: stageId().optional().describe('one stage: its state and a slice of its log'),
        cursor: cursorParam("read the tail of the stage's log").optional().describe(
          'with stageId: opaque, the log.nextCursor of the previous answer, passed back unchanged; "start" reads the log from its ' +
            "beginning; omit it to read the tail of the stage's log",
        ),
        maxBytes: z.number().int().min(1).max(LIMITS.maxLogReadBytes).optional().describe(`with stageId: at most this many bytes of log per answer (at most ${LIMITS.maxLogReadBytes})`),
        stages: z
          .boolean()
          .optional()
          .describe('without stageId: false leaves the list of stages out (the graph, its state and progress counts only); default true'),
        /** Wait up to this long (clamped) for something new: a state change, or (with stageId and cursor) new log output. */
        waitMs: waitMsParam('something changes (a state change or, with stageId and cursor, new log output)').optional(),
        until: z
          .enum(['change', 'ended'])
          .optional()
          .describe('with waitMs, without stageId: what the wait is for: "change" (the default) any change of the graph or its stages; "ended" only the graph ending'),
      })
      .strict()),
    mcpTool: true,
    readOnly: true,
  },
  tasks_list: {
    description: "The room's task graphs you may see, newest first. Pass the returned nextCursor to page on.",
    capability: 'read',
    input: lazily(() => z
      .object({
        limit: limitParam(LIMITS.maxGraphListPage, 20, 'graphs').optional(),
        cursor: cursorParam('start from the newest graph').optional(),
      })
      .strict()),
    mcpTool: true,
    readOnly: true,
  },
  tasks_cancel: {
    description:
      'Cancel a whole graph, or one stage with stageId: pending stages become cancelled, running ones get SIGINT, then ' +
      'SIGTERM, then SIGKILL (whole process tree). Answers what changed; an ended graph or stage is left as it was.',
    capability: 'write',
    input: lazily(() => z.object({ graphId: graphId(), stageId: stageId().optional().describe('cancel only this stage') }).strict()),
    mcpTool: true,
  },
  tasks_rerun: {
    description:
      'Run an ended graph again: submits a new graph with the same spec (name, stages, maxParallel, onFailure), owned by ' +
      'you. Returns the new graph like tasks_run. A graph still pending or running is refused: cancel it first or wait. ' +
      'only: "failed" runs only the stages that did not complete (failed, and those skipped or cancelled), each with ' +
      'its dependencies among them; the stages that completed are not run again.',
    capability: 'write',
    input: lazily(() =>
      z.object({ graphId: graphId(), only: z.enum(['failed']).optional().describe('"failed": only the stages that did not complete (failed, skipped or cancelled); omitted: every stage') }).strict(),
    ),
    mcpTool: true,
  },
  tasks_graph: {
    description: 'The topology of a graph: each stage with its dependencies and state, and for a pending stage what it waits on.',
    capability: 'read',
    input: lazily(() => z.object({ graphId: graphId() }).strict()),
    mcpTool: true,
    readOnly: true,
  },
} satisfies Record<string, MethodSpec>;

export interface StageView {
  id: string;
  /** Stable task id of the stage: `<graphId>:<stageId>`. */
  taskId: string;
  state: StageState;
  errorCode: StageErrorCode | null;
  exitCode: number | null;
  signal: string | null;
  message: string | null;
  attempt: number;
  maxAttempts: number;
  /** A long-running stage whose readiness condition was met. */
  ready: boolean;
  /** Running, between attempts: the last one failed and the next starts after its backoff (see message). */
  retrying: boolean;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  /** The room's host it runs on (an SSH alias: docs/hosts.md); absent: this machine. */
  host?: string;
  /** false: its host cannot be reached now (the stage goes on there; its state is unknown until it is back). */
  hostReachable?: boolean;
}

export interface GraphView {
  graphId: string;
  /** The graph's task id (the same as graphId). */
  taskId: string;
  name: string | null;
  owner: string;
  state: GraphState;
  progress: { done: number; total: number; byState: Record<StageState, number> };
  maxParallel: number;
  onFailure: string;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  /** True once its logs were compressed into the room's artifact store. */
  logsSpooled: boolean;
  /** Why the graph ended without completing, when the runner (not a stage) ended it: RUNNER_RESTARTED. */
  error: { code: 'RUNNER_RESTARTED'; message: string } | null;
}

export interface LogRecord {
  seq: number;
  stream: 'stdout' | 'stderr' | 'runner';
  at: string;
  text: string;
}

export interface LogSlice {
  records: LogRecord[];
  /** Pass as `cursor` (with the same stageId) to read on. */
  nextCursor: string;
  /** More is already there past `cursor`. */
  more: boolean;
  /** Total bytes of the log so far. */
  size: number;
  spooled: boolean;
}

export interface GraphTopologyNode {
  id: string;
  dependsOn: string[];
  dependents: string[];
  state: StageState;
  errorCode: StageErrorCode | null;
  ready: boolean;
  /** Between attempts, waiting out the backoff before the next. */
  retrying: boolean;
  command: string | string[];
  /** For a pending stage: the dependencies it still waits on, and whether it waits for a free slot. */
  waitingOn: { stages: { id: string; state: StageState }[]; slot: boolean } | null;
}

export interface GraphOutputs {
  tasks_run: { graphId: string; taskId: string; state: GraphState; stages: { id: string; state: StageState }[] };
  tasks_status: ({ graph: GraphView; stages: StageView[] } | { graph: GraphView } | { graph: GraphView; stage: StageView; log: LogSlice }) & {
    /** How long the call waited (only with waitMs). */
    waitedMs?: number;
  };
  tasks_list: { graphs: GraphView[]; nextCursor: string | null };
  tasks_rerun: GraphOutputs['tasks_run'];
  tasks_cancel: {
    graphId: string;
    changed: { id: string; from: StageState; to: StageState }[];
    unchanged: { id: string; state: StageState }[];
    /** A sentence for a person: what happened. */
    message: string;
    graph: GraphView;
  };
  tasks_graph: { graph: GraphView; stages: GraphTopologyNode[]; order: string[] };
}
