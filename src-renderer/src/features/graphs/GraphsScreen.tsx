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
import './graphs.css';

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
  const [query, setQuery] = useState<StageQuery>({ text: '', state: '' });
  const [focus, setFocus] = useState<{ id: string; seq: number } | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const topologyStages = topology?.stages;
  const matches = useMemo(() => (topologyStages ? matchingStages(topologyStages, query) : null), [topologyStages, query]);
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
            <button type="button" onClick={() => void store.getState().rerun()}>
              Re-run graph
            </button>
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
          setFocus((f) => ({ id, seq: (f?.seq ?? 0) + 1 }));
        }}
      />
      <div className="graph-body">
        <GraphDag
          key={graph.graphId}
          graphId={graph.graphId}
          stages={topology.stages}
          selectedStageId={selectedStageId}
          attempts={attempts}
          matches={matches}
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
