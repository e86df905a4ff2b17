import { useEffect, useMemo, useState } from 'react';
import { EmptyState } from '../../app/EmptyState';
import { useRoom, useShells } from '../../room-context';
import { createGraphsStore } from '../../stores/graphs-store';
import { GraphDag } from './GraphDag';
import { GraphFinder } from './GraphFinder';
import { matchingStages, type StageQuery } from './graph-find';
import { GraphList } from './GraphList';
import { StagePanel } from './StagePanel';
import { isEnded, stateLabel } from './stage-state';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import { GraphsContext, useGraphs, useGraphsStore } from './use-graphs';
import { lineageOf } from './view-math';
import './graphs.css';

const NO_QUERY: StageQuery = { text: '', state: '' };

/** The room's task graphs: a paged list, the chosen graph as a live DAG, and the chosen stage's details and log. */
export function GraphsScreen(props: { opened?: { graphId: string; stageId: string | null } | null; onOpenTerminal(): void }): React.JSX.Element {
  const { client } = useRoom();
  const { opened } = props;
  const store = useMemo(() => {
    const made = createGraphsStore(client);
    // opened from Activity: that graph (and stage), not the newest one
    if (opened) {
      made.getState().selectGraph(opened.graphId);
      if (opened.stageId) made.getState().selectStage(opened.stageId);
    }
    return made;
  }, [client, opened]);
  useEffect(() => () => store.dispose(), [store]);
  return (
    <GraphsContext.Provider value={store}>
      <div className="graphs">
        <GraphList />
        <GraphDetail onOpenTerminal={props.onOpenTerminal} />
      </div>
    </GraphsContext.Provider>
  );
}

function GraphDetail(props: { onOpenTerminal(): void }): React.JSX.Element {
  const store = useGraphsStore();
  const { shells } = useRoom();
  const topology = useGraphs((s) => s.topology);
  const stages = useGraphs((s) => s.stages);
  const selectedStageId = useGraphs((s) => s.selectedStageId);
  const log = useGraphs((s) => s.log);
  const error = useGraphs((s) => s.error);
  const notice = useGraphs((s) => s.notice);
  const loaded = useGraphs((s) => s.loaded);
  const shellList = useShells((s) => s.shells);
  // the finder's query, the go-to and focus mode belong to the graph they were made on: another graph starts clean
  const graphId = topology?.graph.graphId ?? null;
  const [own, setOwn] = useState<{ graphId: string | null; query: StageQuery; focus: { id: string; seq: number } | null; lineageOf: string | null }>({ graphId, query: NO_QUERY, focus: null, lineageOf: null });
  const mine = own.graphId === graphId ? own : { graphId, query: NO_QUERY, focus: null, lineageOf: null };
  const { query, focus } = mine;
  const setQuery = (q: StageQuery) => setOwn({ ...mine, query: q });
  const setFocus = (id: string) => setOwn({ ...mine, focus: { id, seq: (mine.focus?.seq ?? 0) + 1 } });
  // focus mode follows the selected stage while it is on; off when no stage is selected
  const lineageFor = mine.lineageOf !== null && selectedStageId ? selectedStageId : null;
  const toggleLineage = () => setOwn({ ...mine, lineageOf: mine.lineageOf ? null : selectedStageId });
  const [cancelling, setCancelling] = useState(false);
  const topologyStages = topology?.stages;
  const matches = useMemo(() => (topologyStages ? matchingStages(topologyStages, query) : null), [topologyStages, query]);
  const lineage = useMemo(() => (topologyStages && lineageFor ? lineageOf(topologyStages, lineageFor) : null), [topologyStages, lineageFor]);
  // retries show on the graph: each stage's attempt, from the status read
  const attempts = useMemo(() => new Map(stages.map((s) => [s.id, { attempt: s.attempt, maxAttempts: s.maxAttempts }])), [stages]);

  if (!topology) {
    return (
      <section className="graph-area">
        {error && <ErrorLine text={error} onDismiss={() => store.getState().dismissError()} />}
        <EmptyState title={loaded ? 'No graph chosen' : 'Loading graphs…'} text="Graphs run by agents with tasks_run show here as live DAGs." />
      </section>
    );
  }
  const { graph } = topology;
  const node = topology.stages.find((s) => s.id === selectedStageId) ?? null;
  const stage = stages.find((s) => s.id === selectedStageId) ?? null;
  const shellPrefix = node ? `stage ${graph.graphId}:${node.id}#` : null;
  const terminal = shellPrefix ? ([...shellList].reverse().find((s) => s.name.startsWith(shellPrefix)) ?? null) : null;
  const byState = Object.entries(graph.progress.byState).filter(([, n]) => n > 0);

  return (
    <section className="graph-area">
      <header className="graph-head">
        <div className="graph-title">
          <h2 className="truncate" title={graph.name ?? graph.graphId}>{graph.name ?? graph.graphId}</h2>
          <span className={`state-chip state-${graph.state}`} data-testid="graph-state">{stateLabel(graph.state)}</span>
        </div>
        <div className="graph-meta muted">
          <span>by {graph.owner}</span>
          <span>
            {graph.progress.done}/{graph.progress.total} ended
          </span>
          {byState.map(([state, n]) => (
            <span key={state} className={`count-${state}`}>
              {n} {state}
            </span>
          ))}
        </div>
        <div className="graph-actions">
          {!isEnded(graph.state) && (
            <button
              type="button"
              className="danger"
              onClick={() => setCancelling(true)}
            >
              Cancel graph
            </button>
          )}
          {cancelling && (
            // cannot be undone: its running stages are ended, the rest never run
            <ConfirmDialog
              title={`Cancel ${graph.name ?? graph.graphId}?`}
              message={`${(graph.progress.byState.running ?? 0) > 0 ? `Its ${graph.progress.byState.running} running stage${graph.progress.byState.running === 1 ? ' is' : 's are'} ended and ` : ''}the stages not yet run never run. This cannot be undone.`}
              confirm="Cancel graph"
              keep="Keep it running"
              onConfirm={() => void store.getState().cancel()}
              onClose={() => setCancelling(false)}
            />
          )}
          {isEnded(graph.state) && graph.state !== 'completed' && (
            <>
              <button type="button" title="Only the stages that did not complete (failed, skipped, cancelled): the completed ones are not run again" onClick={() => void store.getState().rerun('failed')}>
                Re-run failed stages
              </button>
              <button type="button" onClick={() => void store.getState().rerun()}>
                Re-run graph
              </button>
            </>
          )}
        </div>
      </header>
      {error && <ErrorLine text={error} onDismiss={() => store.getState().dismissError()} />}
      {notice && !error && <div className="notice-line" role="status">{notice}</div>}
      <GraphFinder
        stages={topology.stages}
        query={query}
        matches={matches}
        selectedStageId={selectedStageId}
        onQuery={setQuery}
        onGo={(id) => {
          store.getState().selectStage(id);
          setFocus(id);
        }}
      />
      <div
        className="graph-body"
        onKeyDown={(e) => {
          // F toggles focus mode on the selected stage, Escape leaves it (not while typing in the panel's search)
          if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
          if ((e.key === 'f' || e.key === 'F') && selectedStageId) toggleLineage();
          else if (e.key === 'Escape' && lineageFor) toggleLineage();
        }}
      >
        <GraphDag
          key={graph.graphId}
          graphId={graph.graphId}
          stages={topology.stages}
          selectedStageId={selectedStageId}
          attempts={attempts}
          matches={matches}
          lineage={lineage}
          focus={focus}
          onSelect={(id) => store.getState().selectStage(id)}
        />
        {node && (
          <StagePanel
            key={`${graph.graphId}:${node.id}`}
            node={node}
            stage={stage}
            log={log}
            terminalId={terminal?.id ?? null}
            focused={lineageFor !== null}
            lineageSize={lineage?.size ?? 0}
            onFocusMode={toggleLineage}
            onCancel={() => void store.getState().cancel(node.id)}
            onOpenTerminal={() => {
              if (terminal) shells.getState().select(terminal.id);
              props.onOpenTerminal();
            }}
            onClose={() => store.getState().selectStage(null)}
          />
        )}
      </div>
    </section>
  );
}

function ErrorLine(props: { text: string; onDismiss(): void }): React.JSX.Element {
  return (
    <div className="inline-error" role="alert">
      <span>{props.text}</span>
      <button type="button" className="link-button" onClick={props.onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
