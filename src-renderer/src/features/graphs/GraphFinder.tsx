import type { GraphTopologyNode } from '../../../../src-main/common/methods/graphs';
import { STAGE_STATES_SHOWN } from './stage-state';
import { isFailure, nextStage, type StageQuery } from './graph-find';

/**
 * Finding a stage in a big graph: search by id or command (Enter goes to the next match), a state filter (the
 * rest of the graph is dimmed), and "Next failure", which opens each failed stage in turn.
 */
export function GraphFinder(props: {
  stages: readonly GraphTopologyNode[];
  query: StageQuery;
  matches: Set<string> | null;
  selectedStageId: string | null;
  onQuery(query: StageQuery): void;
  onGo(stageId: string): void;
}): React.JSX.Element {
  const { stages, query, matches, selectedStageId } = props;
  const failures = stages.reduce((n, s) => n + (isFailure(s) ? 1 : 0), 0);
  const goNextMatch = () => {
    if (!matches || matches.size === 0) return;
    const id = nextStage(stages, selectedStageId, (s) => matches.has(s.id));
    if (id) props.onGo(id);
  };
  return (
    <div className="graph-finder" role="search" aria-label="Find stages">
      <input
        type="search"
        aria-label="Find a stage"
        placeholder="Find a stage (id or command)"
        maxLength={200}
        value={query.text}
        onChange={(e) => props.onQuery({ ...query, text: e.target.value })}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            goNextMatch();
          }
        }}
      />
      <select aria-label="Show stages in state" value={query.state} onChange={(e) => props.onQuery({ ...query, state: e.target.value })}>
        <option value="">every state</option>
        {STAGE_STATES_SHOWN.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      {matches && (
        <span className="muted small" data-testid="finder-count" aria-live="polite">
          {matches.size} of {stages.length} match
        </span>
      )}
      {matches && matches.size > 0 && (
        <button type="button" onClick={goNextMatch}>
          Next match
        </button>
      )}
      <button
        type="button"
        disabled={failures === 0}
        title={failures === 0 ? 'No stage failed' : `${failures} failed: opens each in turn`}
        onClick={() => {
          const id = nextStage(stages, selectedStageId, isFailure);
          if (id) props.onGo(id);
        }}
      >
        Next failure{failures > 0 ? ` (${failures})` : ''}
      </button>
    </div>
  );
}
