import { useGraphs, useGraphsStore } from './use-graphs';
import { ageOf, stateLabel } from './stage-state';

/** The room's graphs, newest first, paged: name, owner, state (in words and colour), done/total, age. */
export function GraphList(): React.JSX.Element {
  const store = useGraphsStore();
  const graphs = useGraphs((s) => s.graphs);
  const selected = useGraphs((s) => s.selectedGraphId);
  const nextCursor = useGraphs((s) => s.nextCursor);
  const loaded = useGraphs((s) => s.loaded);
  return (
    <aside className="graph-list" aria-label="Graphs">
      <h2 className="list-title">Graphs</h2>
      {loaded && graphs.length === 0 && <p className="muted pad">No graphs yet. Graphs agents run with tasks_run show up here, live.</p>}
      <ul>
        {graphs.map((g) => (
          <li key={g.graphId}>
            <button
              type="button"
              className={`graph-row ${g.graphId === selected ? 'active' : ''}`}
              aria-current={g.graphId === selected ? 'true' : undefined}
              data-graph-id={g.graphId}
              onClick={() => store.getState().selectGraph(g.graphId)}
            >
              <span className="graph-row-top">
                <span className="graph-name truncate" title={g.name ?? g.graphId}>
                  {g.name ?? g.graphId.slice(0, 8)}
                </span>
                <span className={`state-chip state-${g.state}`}>{stateLabel(g.state)}</span>
              </span>
              <span className="graph-row-meta muted">
                <span className="truncate" title={g.owner}>{g.owner}</span>
                <span>
                  {g.progress.done}/{g.progress.total} ended
                </span>
                <span title={g.createdAt}>{ageOf(g.createdAt)}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
      {nextCursor && (
        <button type="button" className="link-button pad" onClick={() => void store.getState().loadMore()}>
          Show older graphs
        </button>
      )}
    </aside>
  );
}
