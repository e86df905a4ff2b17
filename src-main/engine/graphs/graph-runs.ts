import type { EvidenceRun } from '../../common/handoff-dto';
import { taskLogUri } from '../../common/task-record';
import type { EngineContext } from '../room/index';
import { GraphRepo } from '../store/graphs';

/**
 * A graph run as a handoff's workspace evidence lists it (its name, state, and failed stages with where each
 * one's log is), read here, by the graphs' owner: engine.ts hands it to the workspaces' service.
 */
export function graphRunReads(ctx: EngineContext): (graphId: string) => EvidenceRun | undefined {
  const graphs = new GraphRepo(ctx.room.db);
  return (id) => {
    const g = graphs.graph(id);
    if (!g) return undefined;
    const failed = graphs
      .stages(id)
      .filter((s) => s.state === 'failed')
      .map((s) => ({ stageId: s.stageId, state: s.errorCode ? `${s.state} (${s.errorCode})` : s.state, log: taskLogUri(`${id}:${s.stageId}`) }));
    return { graphId: id, name: g.name, state: g.state, failed };
  };
}
