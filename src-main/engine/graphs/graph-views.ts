import zlib from 'node:zlib';
import { RoomError } from '../../common/errors';
import { waitingOnIn, type SchedStage } from '../../common/graphs/graph-scheduler';
import { STAGE_STATES, type StageState } from '../../common/graphs/stage-machine';
import type { GraphOutputs, GraphTopologyNode, GraphView, StageView } from '../../common/methods/graphs';
import type { Limits } from '../../common/limits';
import type { Caller } from '../../common/dto';
import { readPrivateBuffer, readPrivateRange } from '../core/fs-safe';
import { GRAPH_OPERATION } from '../tasks/index';
import { canSeeTask } from '../tasks/index';
import { readLogSlice, sliceLog, type ByteLogSlice } from './logs/stage-log';
import { decodeCursor, encodeCursor, numberAt, stringAt } from '../core/paging';
import { START_CURSOR } from '../../common/paging';
import type { ArtifactRecord, GraphRecord, GraphRepo, StageRecord } from '../store/graphs';

/**
 * What every read of a graph answers, built from the rows alone, so the engine and the CLI reading the room
 * file (no room process running) give the same views.
 */

const ms = (a: string | null, b: string | null): number | null => (a && b ? Date.parse(b) - Date.parse(a) : null);

export function stageTaskId(graphId: string, stageId: string): string {
  return `${graphId}:${stageId}`;
}

/** A running stage with no process and the last attempt's failure on it: waiting out the backoff before the next. */
function isRetrying(s: StageRecord): boolean {
  return s.state === 'running' && s.pid === null && s.errorCode !== null;
}

export function stageView(s: StageRecord): StageView {
  return {
    id: s.stageId,
    taskId: stageTaskId(s.graphId, s.stageId),
    state: s.state,
    errorCode: s.errorCode,
    exitCode: s.exitCode,
    signal: s.signal,
    message: s.message,
    attempt: s.attempt,
    maxAttempts: s.maxAttempts,
    ready: s.ready,
    retrying: isRetrying(s),
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    durationMs: ms(s.startedAt, s.endedAt),
    ...(s.spec.host !== undefined ? { host: s.spec.host } : {}),
  };
}

export function graphView(g: GraphRecord, stages: readonly StageRecord[]): GraphView {
  const byState = Object.fromEntries(STAGE_STATES.map((s) => [s, 0])) as Record<StageState, number>;
  for (const s of stages) byState[s.state]++;
  const done = stages.length - byState.pending - byState.running;
  return {
    graphId: g.id,
    taskId: g.id,
    name: g.name,
    owner: g.owner,
    state: g.state,
    progress: { done, total: stages.length, byState },
    maxParallel: g.maxParallel,
    onFailure: g.onFailure,
    createdAt: g.createdAt,
    startedAt: g.startedAt,
    endedAt: g.endedAt,
    durationMs: ms(g.startedAt, g.endedAt),
    logsSpooled: g.spooledAt !== null,
    error: restartedError(stages),
  };
}

/** Only restart reconciliation writes RUNNER_RESTARTED, so a stage carrying it says the runner ended the graph. */
function restartedError(stages: readonly StageRecord[]): GraphView['error'] {
  const hit = stages.find((s) => s.errorCode === 'RUNNER_RESTARTED');
  return hit ? { code: 'RUNNER_RESTARTED', message: 'the runner stopped while this graph ran; submit it again (tasks_rerun)' } : null;
}

export function schedStages(stages: readonly StageRecord[]): SchedStage[] {
  return stages.map((s) => ({ id: s.stageId, dependsOn: s.dependsOn, state: s.state, hasReadiness: s.spec.readiness !== undefined, ready: s.ready }));
}

/** Sees every graph (lists them all): what the one task rule grants a graph run's non-owner. */
export function canSeeAll(caller: Caller): boolean {
  return canSeeTask(caller, { owner: '', assignee: null, operation: GRAPH_OPERATION });
}

/** The graph if this caller may see it; an unknown and a hidden graph answer the same. */
export function visibleGraph(repo: GraphRepo, caller: Caller, graphId: string): GraphRecord {
  const g = repo.graph(graphId);
  if (!g || !canSeeTask(caller, { owner: g.owner, assignee: null, operation: GRAPH_OPERATION })) {
    throw new RoomError('NOT_FOUND', `unknown graph ${graphId}: tasks_list shows the graphs you may see`);
  }
  return g;
}

function stageOf(stages: readonly StageRecord[], graphId: string, stageId: string): StageRecord {
  const s = stages.find((x) => x.stageId === stageId);
  if (!s) throw new RoomError('NOT_FOUND', `graph ${graphId} has no stage "${stageId}": tasks_graph lists its stages`);
  return s;
}

/**
 * A spooled stage log, decompressed (bounded: a log never outgrows its cap): its member of the graph's archive,
 * or its own file (spooled by schema 6). Missing: empty.
 */
export function unpackArtifact(artifact: Pick<ArtifactRecord, 'path' | 'byteOffset' | 'storedBytes'>, maxLogBytes: number): Buffer {
  const packed = artifact.byteOffset === null ? readPrivateBuffer(artifact.path) : readPrivateRange(artifact.path, artifact.byteOffset, artifact.storedBytes);
  return packed ? zlib.gunzipSync(packed, { maxOutputLength: maxLogBytes + 1024 * 1024 }) : Buffer.alloc(0);
}

/** A stage's log slice: from its spooled artifact when there is one, else from its log file. */
export function readStageLog(repo: GraphRepo, s: StageRecord, cursor: number | undefined, maxBytes: number, maxLogBytes: number): ByteLogSlice {
  const artifact = repo.artifact(s.graphId, s.stageId);
  if (artifact) return sliceLog(unpackArtifact(artifact, maxLogBytes), cursor, maxBytes, true);
  return readLogSlice(s.logPath, cursor, maxBytes);
}

export function statusOf(
  repo: GraphRepo,
  caller: Caller,
  input: { graphId: string; stageId?: string | undefined; cursor?: string | undefined; maxBytes?: number | undefined; stages?: boolean | undefined },
  // the engine passes its own; the default is for the CLI reading a room file without a room process
  limits: Pick<Limits, 'defaultLogReadBytes' | 'maxStageLogBytes'>,
  /** The runner's own copy of a running graph's rows (a status poll of a 10,000-stage graph need not read them all). */
  live?: (graphId: string) => readonly StageRecord[] | undefined,
): GraphOutputs['tasks_status'] {
  const g = visibleGraph(repo, caller, input.graphId);
  const stages = live?.(g.id) ?? repo.stages(g.id);
  const graph = graphView(g, stages);
  if (input.stageId === undefined) return input.stages === false ? { graph } : { graph, stages: stages.map(stageView) };
  if (input.stages !== undefined) throw new RoomError('INVALID_INPUT', 'stages applies to a whole graph: leave it out with stageId (the answer is that stage)');
  const s = stageOf(stages, g.id, input.stageId);
  const from = input.cursor === undefined ? undefined : stageLogOffset(input.cursor, g.id, s.stageId);
  const { cursor, ...slice } = readStageLog(repo, s, from, input.maxBytes ?? limits.defaultLogReadBytes, limits.maxStageLogBytes);
  return { graph, stage: stageView(s), log: { ...slice, nextCursor: encodeCursor('stage-log', `${g.id}:${s.stageId}`, [cursor]) } };
}

/** The byte offset inside a tasks_status log cursor, which must be one this stage's log gave out. */
export function stageLogOffset(cursor: string, graphId: string, stageId: string): number {
  if (cursor === START_CURSOR) return 0;
  const restart = "read the tail of the stage's log";
  return numberAt(decodeCursor(cursor, 'stage-log', `${graphId}:${stageId}`, restart), 0, restart);
}

export function topologyOf(repo: GraphRepo, caller: Caller, graphId: string): GraphOutputs['tasks_graph'] {
  const g = visibleGraph(repo, caller, graphId);
  const stages = repo.stages(g.id);
  const sched = schedStages(stages);
  const waiting = waitingOnIn(sched, g.maxParallel);
  // built once: per stage, a scan of every stage would make a 10,000-stage view quadratic
  const dependents = new Map<string, string[]>();
  for (const d of stages) for (const up of d.dependsOn) (dependents.get(up) ?? dependents.set(up, []).get(up))?.push(d.stageId);
  const nodes: GraphTopologyNode[] = stages.map((s, i) => ({
    id: s.stageId,
    dependsOn: s.dependsOn,
    dependents: dependents.get(s.stageId) ?? [],
    state: s.state,
    errorCode: s.errorCode,
    ready: s.ready,
    retrying: isRetrying(s),
    command: s.spec.command,
    waitingOn: s.state === 'pending' ? waiting(sched[i] as SchedStage) : null,
  }));
  return { graph: graphView(g, stages), stages: nodes, order: stages.map((s) => s.stageId) };
}

function graphListPosition(cursor: string): { createdAt: string; id: string } {
  const restart = 'start from the newest graph';
  const position = decodeCursor(cursor, 'graphs', '', restart);
  return { createdAt: stringAt(position, 0, restart), id: stringAt(position, 1, restart) };
}

export function listOf(repo: GraphRepo, caller: Caller, input: { limit?: number | undefined; cursor?: string | undefined }): GraphOutputs['tasks_list'] {
  const limit = input.limit ?? 20;
  const rows = repo.list(canSeeAll(caller) ? null : caller.name, limit + 1, input.cursor ? graphListPosition(input.cursor) : undefined);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    graphs: page.map((g) => graphView(g, repo.stages(g.id))),
    nextCursor: rows.length > limit && last ? encodeCursor('graphs', '', [last.createdAt, last.id]) : null,
  };
}
