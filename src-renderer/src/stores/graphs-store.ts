/**
 * The room's task graphs as the person may see them. The engine is the truth: the list is re-read with
 * tasks_list when the link opens and when a graph.* event arrives; the selected graph's topology (tasks_graph)
 * and stage details (tasks_status) are read when it is chosen and when its own state changes, and a stage
 * event patches them (graph-patch.ts) instead of reading the whole graph again. Re-reads are coalesced: one at
 * a time per kind, asks made meanwhile fold into one re-read after it. Nothing polls. The selected stage's log
 * follows by cursor: re-read on the graph's events, and while the stage runs, a tasks_status call with waitMs
 * that the engine answers as soon as new output is there (the engine's own wait, not a timer here).
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EventView } from '../../../src-main/common/handoff-dto';
import type { GraphTopologyNode, GraphView, LogRecord, StageView } from '../../../src-main/common/methods/graphs';
import type { EngineClient } from '../engine-client';
import { coalesced, describeError as describe } from './coalesced-read';
import { patchStageView, patchTopology, stageChangeOf, type StageChange } from './graph-patch';

/** How many log records the panel keeps; older ones are dropped (the engine still has them). */
const MAX_LOG_RECORDS = 5000;
const PAGE = 50;
/** The most rows a live refresh re-reads (the list's own limit): a list paged in beyond it is cut back to it, and "more" pages on. */
const MAX_REREAD = 200;
const LOG_WAIT_MS = 20_000;
/** How long stage events gather before they are applied to the graph on screen, together. */
const PATCH_BATCH_MS = 50;

export interface StageLog {
  stageId: string;
  records: LogRecord[];
  /** Opaque: the log.nextCursor of the last read. */
  cursor: string;
  spooled: boolean;
  /** Records were dropped from the front to keep the panel bounded. */
  truncated: boolean;
}

export interface GraphsSlice {
  graphs: GraphView[];
  nextCursor: string | null;
  loaded: boolean;
  error: string | null;
  selectedGraphId: string | null;
  topology: { graph: GraphView; stages: GraphTopologyNode[]; order: string[] } | null;
  stages: StageView[];
  selectedStageId: string | null;
  log: StageLog | null;
  /** A sentence from the last cancel/re-run, for the person. */
  notice: string | null;
  selectGraph(id: string | null): void;
  selectStage(id: string | null): void;
  refreshList(): Promise<void>;
  loadMore(): Promise<void>;
  refreshGraph(): Promise<void>;
  cancel(stageId?: string): Promise<void>;
  /** Runs the graph again as a new one; `only: 'failed'`: just the stages that did not complete. */
  rerun(only?: 'failed'): Promise<void>;
  applyEvent(event: EventView): void;
  dismissError(): void;
}

/** The graph a graph.* event is about: its data's graphId, or its subject (graph.submitted names the graph there). */
export function graphIdOf(event: EventView): string | null {
  if (!event.kind.startsWith('graph.')) return null;
  const data = event.data as { graphId?: unknown } | null;
  if (data && typeof data.graphId === 'string') return data.graphId;
  return event.subject;
}

export function createGraphsStore(client: EngineClient): StoreApi<GraphsSlice> & { dispose(): void } {
  let disposed = false;
  let following: string | null = null; // `${graphId}:${stageId}` of the running log wait

  const store = createStore<GraphsSlice>((set, get) => {
    const readList = coalesced(async () => {
      try {
        // re-read as many rows as the person has paged in, so a live update does not collapse the list; counted
        // again when the answer lands, as "more" may have been paged in meanwhile (then read again, larger)
        const want = () => Math.min(MAX_REREAD, Math.max(PAGE, get().graphs.length));
        const readRows = async (limit: number) => ({ limit, ...(await client.call('tasks_list', { limit })) });
        let rows = await readRows(want());
        while (!disposed && want() > rows.limit) rows = await readRows(want());
        const { graphs, nextCursor } = rows;
        const same = get().loaded && JSON.stringify(graphs) === JSON.stringify(get().graphs);
        const selected = get().selectedGraphId;
        set({ ...(same ? {} : { graphs }), nextCursor, loaded: true, error: null, selectedGraphId: selected ?? graphs[0]?.graphId ?? null });
        if (selected === null && graphs[0]) void readGraph();
      } catch (error) {
        set({ error: describe(error, 'could not read the graphs') });
      }
    });

    const readGraph = coalesced(async () => {
      const graphId = get().selectedGraphId;
      if (!graphId) return;
      try {
        const reading = client.call('tasks_graph', { graphId });
        const statusRead = client.call('tasks_status', { graphId });
        statusRead.catch(() => undefined); // awaited below; an early failure of the topology read must not leave it unhandled
        const topology = await reading;
        if (get().selectedGraphId !== graphId) return;
        // a graph just chosen is drawn from its topology at once: the stage details (attempts, times) follow
        if (get().topology === null) set({ topology });
        const status = await statusRead;
        if (get().selectedGraphId !== graphId) return;
        // stage events queued so far were committed before this read answered (the link keeps their order):
        // the read has them, and applying them after it could set a stage back
        queued = [];
        const stages = 'stages' in status ? status.stages : [];
        const same = JSON.stringify(topology) === JSON.stringify(get().topology);
        set({ ...(same ? {} : { topology }), stages, error: null });
        // a graph row in the list follows the graph's own state at once
        set((s) => ({ graphs: s.graphs.map((g) => (g.graphId === graphId ? topology.graph : g)) }));
        await readLog();
      } catch (error) {
        if (get().selectedGraphId === graphId) set({ error: describe(error, 'could not read the graph') });
      }
    });

    /** Reads the selected stage's log on from its cursor (or its tail when first opened). */
    async function readLog(waitMs?: number): Promise<boolean> {
      const graphId = get().selectedGraphId;
      const stageId = get().selectedStageId;
      if (!graphId || !stageId) return false;
      const prior = get().log?.stageId === stageId ? get().log : null;
      const result = await client.call('tasks_status', {
        graphId,
        stageId,
        ...(prior ? { cursor: prior.cursor } : {}),
        ...(waitMs !== undefined && prior ? { waitMs } : {}),
      });
      if (get().selectedGraphId !== graphId || get().selectedStageId !== stageId || !('log' in result)) return false;
      const current = get().log?.stageId === stageId ? get().log : null;
      if (current && (!prior || current.cursor !== prior.cursor)) return true; // another read got there first
      let records = [...(current?.records ?? []), ...result.log.records];
      const truncated = (current?.truncated ?? false) || records.length > MAX_LOG_RECORDS;
      if (records.length > MAX_LOG_RECORDS) records = records.slice(-MAX_LOG_RECORDS);
      set({
        log: { stageId, records, cursor: result.log.nextCursor, spooled: result.log.spooled, truncated },
        stages: get().stages.map((s) => (s.id === stageId ? result.stage : s)),
      });
      if (result.log.more) return readLog();
      return result.stage.state === 'running' || result.stage.state === 'pending';
    }

    /** While the selected stage may still write, wait on the engine for new output, one call at a time. */
    async function follow(): Promise<void> {
      const key = `${get().selectedGraphId}:${get().selectedStageId}`;
      if (following === key) return;
      following = key;
      try {
        let live = await readLog();
        while (live && !disposed && following === key && `${get().selectedGraphId}:${get().selectedStageId}` === key) {
          live = await readLog(LOG_WAIT_MS);
        }
      } catch (error) {
        set({ error: describe(error, 'could not read the stage log') });
      } finally {
        if (following === key) following = null;
      }
    }

    /** Stage changes waiting for the next batch (one pass over the graph per batch, not per event). */
    let queued: StageChange[] = [];
    let flushTimer: ReturnType<typeof setTimeout> | null = null;
    function queuePatch(change: StageChange): void {
      queued.push(change);
      flushTimer ??= setTimeout(flushPatches, PATCH_BATCH_MS);
    }
    function flushPatches(): void {
      flushTimer = null;
      const topology = get().topology;
      const changes = queued.filter((c) => c.graphId === topology?.graph.graphId);
      queued = [];
      if (!topology || changes.length === 0 || disposed) return;
      const patched = patchTopology(topology, changes);
      if (!patched) {
        void readGraph(); // a stage this view does not know: read the graph as it is
        return;
      }
      const latest = new Map(changes.map((c) => [c.stageId, c] as const));
      set((s) => ({
        topology: patched,
        stages: s.stages.map((st) => {
          const c = latest.get(st.id);
          return c ? patchStageView(st, c) : st;
        }),
        graphs: s.graphs.map((g) => (g.graphId === patched.graph.graphId ? patched.graph : g)),
      }));
      const open = get().selectedStageId;
      if (open && latest.has(open)) void follow();
    }

    return {
      graphs: [],
      nextCursor: null,
      loaded: false,
      error: null,
      selectedGraphId: null,
      topology: null,
      stages: [],
      selectedStageId: null,
      log: null,
      notice: null,
      selectGraph(id) {
        if (id === get().selectedGraphId) return;
        following = null;
        set({ selectedGraphId: id, topology: null, stages: [], selectedStageId: null, log: null, notice: null });
        void readGraph();
      },
      selectStage(id) {
        if (id === get().selectedStageId) return;
        following = null;
        set({ selectedStageId: id, log: null });
        if (id) void follow();
      },
      refreshList: readList,
      async loadMore() {
        const cursor = get().nextCursor;
        if (!cursor) return;
        try {
          const page = await client.call('tasks_list', { limit: PAGE, cursor });
          set((s) => ({
            graphs: [...s.graphs, ...page.graphs.filter((g) => !s.graphs.some((x) => x.graphId === g.graphId))],
            nextCursor: page.nextCursor,
          }));
        } catch (error) {
          set({ error: describe(error, 'could not read more graphs') });
        }
      },
      refreshGraph: readGraph,
      async cancel(stageId) {
        const graphId = get().selectedGraphId;
        if (!graphId) return;
        try {
          const result = await client.call('tasks_cancel', { graphId, ...(stageId ? { stageId } : {}) });
          set({ notice: result.message, error: null });
        } catch (error) {
          set({ error: describe(error, 'could not cancel') });
        }
        await readGraph();
      },
      async rerun(only) {
        const graphId = get().selectedGraphId;
        if (!graphId) return;
        try {
          const result = await client.call('tasks_rerun', { graphId, ...(only ? { only } : {}) });
          await readList();
          get().selectGraph(result.graphId);
          set({ notice: only ? `The ${result.stages.length} stage${result.stages.length === 1 ? '' : 's'} that did not complete re-run as a new graph.` : 'Re-run submitted as a new graph.' });
        } catch (error) {
          set({ error: describe(error, 'could not re-run the graph') });
        }
      },
      applyEvent(event) {
        const graphId = graphIdOf(event);
        if (!event.kind.startsWith('graph.')) return;
        const selected = graphId !== null && graphId === get().selectedGraphId;
        // a stage of the graph on screen moved: patched from the event itself, not read again (a 500-stage
        // graph's topology and statuses per stage event); events of one burst are applied together
        const change = selected ? stageChangeOf(event) : null;
        if (change && get().topology?.graph.graphId === change.graphId) {
          queuePatch(change);
          return;
        }
        void readList();
        if (selected) {
          void readGraph();
          if (get().selectedStageId) void follow();
        }
      },
      dismissError: () => set({ error: null, notice: null }),
    };
  });

  const linked = (state: string) => {
    if (state !== 'open') return;
    void store.getState().refreshList();
    void store.getState().refreshGraph();
  };
  const offs = [client.onState(linked), client.on((event) => store.getState().applyEvent(event))];
  if (client.state === 'open') linked('open');

  return Object.assign(store, {
    dispose() {
      disposed = true;
      offs.forEach((off) => off());
    },
  });
}
