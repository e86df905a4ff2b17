import fs from 'node:fs';
import { logSize } from '../logs/stage-log-reader';
import { decide } from '../../../common/graphs/graph-scheduler';
import { deriveGraphState, type StageState } from '../../../common/graphs/stage-machine';
import type { EngineContext, EventInput } from '../../room/index';
import { findTagged, isAlive, killTree, type ProcessIdentity, type TaggedProcess } from '../../process/process-tree';
import type { GraphRepo, StageRecord } from '../../store/graphs';
import { schedStages, stageTaskId } from '../graph-views';
import { endGraphTask } from '../graph-task';
import type { TaskService } from '../../tasks/index';

/**
 * Restart reconciliation, run once when the room opens, before anything new starts. A previous runner that
 * died (kill -9, power loss) left stages `running` and maybe their process trees alive. Each such tree is
 * found by its tag (start time checked before any signal) and ended; then, in one transaction, every running
 * stage becomes failed/RUNNER_RESTARTED, its dependents skipped, and stages that never started skipped too:
 * a graph does not resume on its own after a restart (submit it again). Nothing stays running here.
 *
 * Except on the room's hosts: a stage running on a host was never this runner's process (the host's node runs
 * it), so it is left running, and its graph goes on: the runtime adopts such stages by their keys (the node
 * answers with the run it has, never starting it twice) and schedules the rest. Its stages that ran here are
 * failed RUNNER_RESTARTED as always, and what depends on them is skipped.
 */
export async function reconcileAfterRestart(
  ctx: EngineContext,
  repo: GraphRepo,
  tasks: TaskService,
  tagPrefix: string,
  /** The room's tagged processes as the engine's start found them (else looked up here, once). */
  tagged: readonly TaggedProcess[] = findTagged(tagPrefix, { prefix: true }),
): Promise<{ stages: number; killed: number }> {
  // one look serves every stage (a look per running stage read every process on the machine each time)
  const ours = tagged.filter((p) => p.tag.startsWith(tagPrefix));
  const graphs = repo.unfinished();
  const onHost = (s: StageRecord) => s.state === 'running' && s.spec.host !== undefined;
  const running: StageRecord[] = graphs.flatMap((g) => repo.stages(g.id).filter((s) => s.state === 'running' && !onHost(s)));
  const plan = { signals: ['SIGTERM', 'SIGKILL'] as NodeJS.Signals[], graceMs: 1000 };
  let killed = 0;
  const ends: Promise<unknown>[] = [];
  for (const s of running) {
    if (!s.procTag) continue;
    const root: ProcessIdentity | undefined = s.pid !== null && s.pidStart !== null ? { pid: s.pid, startTime: s.pidStart } : undefined;
    // the group is signalled only while its leader is provably the same process (a recycled pgid is left alone)
    const pgid = root && isAlive(root) ? root.pid : undefined;
    const found = ours.filter((p) => p.tag === s.procTag).length + (pgid !== undefined ? 1 : 0);
    if (found === 0) continue;
    killed += found;
    ends.push(killTree({ tag: s.procTag, pgid, root }, plan));
  }
  // anything else of this room's stages still tagged (e.g. an attempt whose row moved on): nothing of ours may run now
  const known = new Set(running.map((s) => s.procTag));
  // each found process brings its own tag, so each tree is ended by its own tag
  const strays = [...new Set(ours.map((p) => p.tag))].filter((t) => !known.has(t));
  killed += strays.length;
  ends.push(...strays.map((tag) => killTree({ tag }, plan)));
  await Promise.all(ends);
  if (graphs.length === 0) return { stages: 0, killed };

  ctx.commit(() => {
    const at = ctx.now();
    const events: EventInput[] = [];
    for (const g of graphs) {
      const stages = repo.stages(g.id);
      const resumes = stages.some(onHost);
      for (const s of stages.filter((x) => x.state === 'running' && !onHost(x))) {
        repo.updateStage(g.id, s.stageId, { state: 'running', attempt: s.attempt }, {
          state: 'failed',
          errorCode: 'RUNNER_RESTARTED',
          message: 'the runner stopped while this stage ran (its processes were ended at restart)',
          endedAt: at,
          pid: null,
          pidStart: null,
        });
        s.state = 'failed';
        events.push({ kind: 'graph.stage', actor: null, subject: stageTaskId(g.id, s.stageId), data: { graphId: g.id, stageId: s.stageId, state: 'failed', errorCode: 'RUNNER_RESTARTED' } });
      }
      // a stage on a host goes on: its graph is scheduled again (its dependents of a failed stage skipped then);
      // the empty logs the previous runner made ahead for its pending stages go (a stage's log is a new file)
      if (resumes) {
        for (const s of stages) if (s.state === 'pending' && logSize(s.logPath) === 0) fs.rmSync(s.logPath, { force: true });
        continue;
      }
      const d = decide(schedStages(stages), { maxParallel: g.maxParallel, onFailure: 'skip-dependents' });
      const upstream = new Map(d.skip.map((k) => [k.id, k.upstream] as const));
      for (const s of stages.filter((x) => x.state === 'pending')) {
        const up = upstream.get(s.stageId);
        repo.updateStage(g.id, s.stageId, { state: 'pending' }, {
          state: 'skipped',
          errorCode: up !== undefined ? 'UPSTREAM_FAILED' : 'RUNNER_RESTARTED',
          message: up !== undefined ? `skipped: ${up} did not complete` : 'skipped: the runner restarted before it ran; submit the graph again',
          endedAt: at,
        });
        s.state = 'skipped';
        events.push({ kind: 'graph.stage', actor: null, subject: stageTaskId(g.id, s.stageId), data: { graphId: g.id, stageId: s.stageId, state: 'skipped' } });
      }
      const state = deriveGraphState(stages.map((s) => s.state as StageState));
      repo.setGraph(g.id, { state, endedAt: at, startedAt: g.startedAt ?? at });
      const ended = { kind: 'graph.ended', actor: null, subject: g.id, data: { state, reason: 'RUNNER_RESTARTED' } };
      // the graph and its task say why, not only the stage: a tasks/get after the restart reads the reason
      const message = `RUNNER_RESTARTED: the runner stopped while this graph ran; submit it again (tasks_rerun)`;
      endGraphTask(
        tasks,
        g.id,
        {
          state,
          statusMessage: message,
          result: { graphId: g.id, state, stages: stages.length, errorCode: 'RUNNER_RESTARTED' },
          error: { code: RUNNER_RESTARTED_RPC_CODE, message, data: { errorCode: 'RUNNER_RESTARTED', graphId: g.id } },
        },
        ended,
        events,
      );
    }
    return { value: undefined, events };
  });
  return { stages: running.length, killed };
}

/** JSON-RPC's internal error: the work did not fail by itself, its runner went away. */
const RUNNER_RESTARTED_RPC_CODE = -32603;
