import type { GraphRepo, StageChange, StageRecord } from '../../store/graphs';
import type { StageState } from '../../../common/graphs/stage-machine';
import { shapeOf, type GraphShape } from '../../../common/graphs/graph-scheduler';

/**
 * The runtime's copy of the stage rows of the graphs it runs. The runtime is the only writer of stage rows
 * while the room is open, so each graph's rows are read (and their specs JSON-parsed) once, and every write
 * goes through `update`, which changes the row and this copy together. Without it every tick re-read and
 * re-parsed every stage of every unfinished graph, several times: the largest cost of a graph run.
 *
 * A write inside a transaction that then rolls back would leave the copy ahead of the database: whoever
 * catches such a failure calls `clear()`, and the rows are read afresh.
 */
export class StageCache {
  private readonly graphs = new Map<string, { list: StageRecord[]; byId: Map<string, StageRecord>; shape?: GraphShape }>();

  constructor(private readonly repo: GraphRepo) {}

  private entry(graphId: string) {
    let e = this.graphs.get(graphId);
    if (!e) {
      const list = this.repo.stages(graphId);
      e = { list, byId: new Map(list.map((s) => [s.stageId, s] as const)) };
      this.graphs.set(graphId, e);
    }
    return e;
  }

  /** The graph's stages in submission order (the cached records themselves: read them, change them only through `update`). */
  stages(graphId: string): StageRecord[] {
    return this.entry(graphId).list;
  }

  /** The cached stages of a graph this runtime runs now, or undefined (not read yet, ended, or dropped). */
  peek(graphId: string): readonly StageRecord[] | undefined {
    return this.graphs.get(graphId)?.list;
  }

  /** The graph's dependency structure for the scheduler, built once (it never changes). */
  shape(graphId: string): GraphShape {
    const e = this.entry(graphId);
    e.shape ??= shapeOf(e.list.map((s) => ({ id: s.stageId, dependsOn: s.dependsOn })));
    return e.shape;
  }

  stage(graphId: string, stageId: string): StageRecord | undefined {
    return this.entry(graphId).byId.get(stageId);
  }

  /** The repository's compare-and-set; on success the cached record takes the change too. */
  update(s: StageRecord, expect: { state: StageState; attempt?: number }, change: StageChange): boolean {
    const ok = this.repo.updateStage(s.graphId, s.stageId, expect, change);
    if (ok) {
      // only the cached record changes: a caller's own copy (read before, to compare after) is left as it was
      const cached = this.graphs.get(s.graphId)?.byId.get(s.stageId);
      if (cached) for (const [k, v] of Object.entries(change) as [keyof StageChange, unknown][]) if (v !== undefined) (cached as unknown as Record<string, unknown>)[k] = v;
    }
    return ok;
  }

  /** A graph ended: its rows are not needed any more. */
  forget(graphId: string): void {
    this.graphs.delete(graphId);
  }

  clear(): void {
    this.graphs.clear();
  }
}
